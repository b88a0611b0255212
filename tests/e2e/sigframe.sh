#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: sigframe.sh
#
# Profiles the sigframe workload (no frame pointers): main -> busy_loop,
# interrupted every millisecond by SIGPROF, whose handler on_sigprof calls
# sig_work, where most of the time goes. The walk must go through the
# kernel's signal frame (glibc's __restore_rt, described by CFI with the 'S'
# augmentation) back to the interrupted busy_loop and down to _start.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# glibc's __restore_rt is named by libc's symbol table, which Debian ships
# only in its debug file (libc6-dbg); without it the frame is libc.so.6+N.
chain='{START};main;busy_loop;(?:__restore_rt|\[libc\.so\.6\+0x[0-9a-f]+\]);on_sigprof;sig_work'

record sigframe -F 999 -o "$tmp/sigframe.folded" -- "$WORKLOADS/sigframe" 3
expect_rc 0
check stacks "$tmp/sigframe.folded" --comm sigframe --leaf sig_work --expect "$chain" \
	--min-ratio 0.99 --min-samples 500
finish

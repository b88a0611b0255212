#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The vDSO: inner calls clock_gettime in libc, which calls the vDSO's
# clock_gettime; nearly every sample stops there:
#   _start ... main;outer;inner;clock_gettime;__vdso_clock_gettime
# The [vdso] is walked with the table of unwprof's own vDSO (the same image
# in every process), so samples in its prologues and epilogues, where frame
# pointers fail, keep the whole stack too: at least 99% of the samples in
# the vDSO's clock_gettime have it, and the walk reports no read failure.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# glibc's clock_gettime is __clock_gettime64 in its sources, clock_gettime
# and __clock_gettime in its symbol table; the vDSO's is __vdso_clock_gettime
# on x86_64, __kernel_clock_gettime on aarch64, aliased clock_gettime.
libc_unknown='\[libc\.so\.6\+0x[0-9a-f]+\]'
libc_clock="(?:__clock_gettime(?:64)?|clock_gettime(?:@@?GLIBC_[0-9.]+)?|$libc_unknown)"
leaf=__vdso_clock_gettime
[ "$(uname -m)" = aarch64 ] && leaf=__kernel_clock_gettime
stack="{START};main;outer;inner;$libc_clock;$leaf"

record vdso -F 999 -o "$tmp/vdso.folded" -- "$WORKLOADS/vdso" 3
expect_rc 0
check stacks "$tmp/vdso.folded" --comm vdso --leaf "$leaf" --expect "$stack" \
	--min-ratio 0.99 --min-samples 200
# The samples cut short in the vDSO showed up as these errors.
errors=$(grep -E '^ *errors ' "$tmp/vdso.err")
if grep -qE 'ra-read-failed|no-progress' <<< "$errors"; then
	fail "the walk failed in the profiled process:$errors"
fi
finish

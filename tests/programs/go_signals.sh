#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# gosignals.go signals its own thread again and again, so that about a
# sixth of its samples are in Go's signal handler, on the thread's signal
# stack. Go's own traceback ends at runtime.sigtramp, a top frame for it;
# unwprof goes on through the restorer the handler returns to
# (runtime.sigreturn, or runtime.sigreturn__sigaction from Go 1.21), whose
# row is the kernel's signal frame (core/unwind/table_go.h), into the code
# the signal interrupted: main.raise's system call. Checks:
#  - at least 99% of the samples in Go's signal handler have the
#    interrupted goroutine's whole chain under the restorer:
#    runtime.goexit;runtime.main;main.main;main.signalLoop;main.raise;
#    ...;runtime.sigreturn;runtime.sigtramp;...
#  - at least 99% of the samples with user frames begin at a root of a Go
#    process, as in go.sh.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_program gosignals "go (package golang-go)"

abi0='(?:\.abi0)?'
chain="runtime\\.goexit$abi0;runtime\\.main;main\\.main;main\\.signalLoop;main\\.raise;[^;]+(?:;[^;]+)*"
chain+=";runtime\\.sigreturn(?:__sigaction)?$abi0;runtime\\.sigtramp$abi0(?:;.*)?"

profile gosignals "$PROGRAMS/gosignals" 3
check stacks "$tmp/gosignals.folded" --comm gosignals --through "runtime\\.sigtramp$abi0" \
	--expect "$chain" --min-ratio 0.99 --min-samples 50
check roots "$tmp/gosignals.folded" --root "runtime\\.(?:goexit|rt0_go|mstart|clone)$abi0" \
	--min-ratio 0.99
finish

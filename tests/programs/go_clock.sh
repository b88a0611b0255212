#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# goclock.go reads the clocks in a loop, so that most of its samples are in
# the vDSO's clock_gettime, which Go calls on the thread's system stack
# (time.now, runtime.nanotime1). The walk goes back from there to the
# goroutine's stack through m.vdsoPC and m.vdsoSP, where Go keeps the
# caller's pc and sp for the call, as Go's own traceback does
# (bpf/unwind_go.h). Checks:
#  - dump-unwind reads the two functions and the two offsets, which equal
#    Go's own table (go tool nm) and the binary's DWARF of runtime.m;
#  - at least 99% of the samples in the vDSO have the goroutine's whole
#    chain under time.now or runtime.nanotime1:
#    runtime.goexit;runtime.main;main.main;main.clockLoop;...;__vdso_clock_gettime
#  - at least 99% of the samples with user frames begin at a root of a Go
#    process, as in go.sh.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_program goclock "go (package golang-go)"

abi0='(?:\.abi0)?'
"$UNWPROF" dump-unwind --summary --json "$PROGRAMS/goclock" > "$tmp/goclock.unwind.json" ||
	fail "dump-unwind --json of goclock failed"
go tool nm -sort address "$PROGRAMS/goclock" > "$tmp/goclock.nm" ||
	fail "go tool nm of goclock failed"
check go-vdso "$tmp/goclock.unwind.json" "$tmp/goclock.nm" "$PROGRAMS/goclock"

chain="runtime\\.goexit$abi0;runtime\\.main;main\\.main;main\\.clockLoop;[^;]+(?:;[^;]+)*"
chain+=";(?:time\\.now|runtime\\.nanotime1$abi0);__vdso_clock_gettime(?:;.*)?"
profile goclock "$PROGRAMS/goclock" 3
check stacks "$tmp/goclock.folded" --comm goclock --through '__vdso_clock_gettime' \
	--expect "$chain" --min-ratio 0.99 --min-samples 200
check roots "$tmp/goclock.folded" --root "runtime\\.(?:goexit|rt0_go|mstart|clone)$abi0" \
	--min-ratio 0.99
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Go compiler, $(go env GOROOT)/pkg/tool/linux_amd64/compile, compiling
# a generated package (gen.py go: types, methods, generics, closures) with
# two backend workers, 2-3 s here. Debian ships it stripped: no symbol
# table, no .eh_frame, no .debug_frame: it is walked with the SP deltas of
# Go's own pclntab (core/unwind/table_go.h), where its function names are
# too.
# gofuncs (Go's debug/gosym) reads them, and the frames both profiles leave
# unnamed are named from it before the checks (e2e.py go-symbols). Checks:
#  - what the walk knows of Go's stack switch (dump-unwind: the addresses
#    of runtime.systemstack and runtime.morestack, the offsets of g.m,
#    m.g0, m.curg and g.sched read from their code) equals Go's own
#    function table (gofuncs) and the DWARF of a Go binary built by the
#    same toolchain (chain-go; readelf);
#  - at least 98% of the samples reached the bottom (--stats-json), and as
#    many of those with user frames begin at a root of a Go process:
#    runtime.goexit (a goroutine), runtime.rt0_go or runtime.mstart (the
#    system stack of the first or of another thread; runtime.clone below it
#    where frame pointers lead there). 97.4% did with frame pointers alone.
#    About a fifth of the compiler's samples (the garbage collector's) run
#    on the system stack, under runtime.systemstack: the walk goes on from
#    the goroutine's saved state there, as Go's traceback does, so they
#    count here too; the scheduler's, under runtime.mcall, go on to the base
#    of the system stack, runtime.mstart;
#  - self time agrees with perf's: every function with at least 4% of the
#    samples as leaf in one profile has at least 2% in the other (not 2%
#    and 1%: how much of the run goes to the garbage collector and to map
#    growth varies from run to run). perf cannot unwind code without CFI,
#    so its stacks are no reference here.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool go "golang-go"
need_program gofuncs "go (package golang-go)"
need_program chain-go "go (package golang-go)"
compile="$(go env GOROOT)/pkg/tool/linux_amd64/compile"
[ -x "$compile" ] || e2e_skip "$compile is not installed (package golang-go)"
"$PROGRAMS/gofuncs" "$compile" > "$tmp/compile.funcs" || fails=$((fails + 1))
"$UNWPROF" dump-unwind --summary --json "$compile" > "$tmp/compile.unwind.json" || fails=$((fails + 1))
check go-switch "$tmp/compile.unwind.json" "$tmp/compile.funcs" "$PROGRAMS/chain-go"
python3 "$gen" go "$tmp/gen.go" 1500

profile go-compile "$compile" -o "$tmp/gen.a" -p gen -c=2 "$tmp/gen.go"
perf_profile go-compile "$compile" -o "$tmp/gen.a" -p gen -c=2 "$tmp/gen.go"
for f in folded perf; do
	if [ -f "$tmp/go-compile.$f" ]; then
		mv "$tmp/go-compile.$f" "$tmp/go-compile.$f.raw"
		python3 "$e2e" go-symbols "$tmp/go-compile.$f.raw" "$compile" "$tmp/compile.funcs" \
			"$tmp/go-compile.$f" || fails=$((fails + 1))
	fi
done
roots='runtime\.(?:goexit|rt0_go|mstart|clone)(?:\.abi0)?'
check stats "$tmp/go-compile.json" --min-bottom 0.98
check roots "$tmp/go-compile.folded" --root "$roots" --min-ratio 0.98
echo "perf, for reference:" >&2
python3 "$e2e" roots "$tmp/go-compile.perf" --root "$roots" --min-ratio 0 || true
check compare "$tmp/go-compile.folded" "$tmp/go-compile.perf" --depth 1 --min-share 0.04
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Recursions of the depth real programs reach (compilers: 200 to 400
# frames, interpreters more), then deeper than a stored stack of 1024
# words. recurse DEPTH calls descend DEPTH + 1 times: main -> descend x
# (DEPTH + 1) -> bottom, the program's own count of its frames.
#  - 900 deep: every sample with the leaf has the whole chain from the
#    process's start, nothing truncated nor elided.
#  - 1400 and 5000 deep: the samples keep both ends, the process's start
#    and the leaf, with one frame between them that counts the frames left
#    out exactly: put back, they give DEPTH + 1 descend. 99% of all the
#    samples reach the root; the deep ones are elided; none is truncated: a
#    walk is bounded by frames, never by time, and 5000 frames a sample at
#    999 Hz is within a CPU's budget (8192 frames a sample on average).
#  - 20000 deep: past the budget, a CPU walks some of the stacks whole and
#    the others to their 1024th frame until its budget fills again, as many
#    as the budget makes of the rate the target was sampled at (fewer on a
#    busy machine, which gives it less of a CPU); those are truncated, each
#    counted as frame-budget-spent, and every sample counted as walked to
#    the bottom was.
#  - In tail calls (kernels before 5.17, forced with UNWPROF_BPF_TAIL_CALLS=1)
#    the walk ends at 1024 frames: a deeper stack keeps the frames nearest
#    its leaf and is counted truncated.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record recurse900 -F 999 -o "$tmp/recurse900.folded" -- "$WORKLOADS/recurse" 2 900
expect_rc 0
descend=$(printf 'descend;%.0s' $(seq 901))
check stacks "$tmp/recurse900.folded" --comm recurse --leaf bottom \
	--expect "{START};main;${descend}bottom" --min-ratio 0.99 --min-samples 200
grep -q "truncated  *0 " "$tmp/recurse900.err" || fail "900 frames deep: samples counted as truncated"
grep -q "elided  *0 " "$tmp/recurse900.err" || fail "900 frames deep: samples counted as elided"

if [ "${UNWPROF_BPF_TAIL_CALLS:-0}" = 1 ]; then
	record recurse1400 -F 999 -o "$tmp/recurse1400.folded" -- "$WORKLOADS/recurse" 2 1400
	expect_rc 0
	check deep "$tmp/recurse1400.folded" --comm recurse --leaf bottom --frame descend \
		--min-frames 1023 --min-samples 200
	check summary "$tmp/recurse1400.err" truncated --min 200
	finish
fi

for depth in 1400 5000; do
	record "recurse$depth" -F 999 -o "$tmp/recurse$depth.folded" -- "$WORKLOADS/recurse" 2 "$depth"
	expect_rc 0
	check elided "$tmp/recurse$depth.folded" --comm recurse --leaf bottom --frame descend \
		--frames $((depth + 1)) --min-samples 200
	check roots "$tmp/recurse$depth.folded" --comm recurse --min-ratio 0.99
	check summary "$tmp/recurse$depth.err" elided --min 200
	check summary "$tmp/recurse$depth.err" truncated --min 0 --max 0
done

record recurse20000 -F 999 -o "$tmp/recurse20000.folded" --stats-json "$tmp/recurse20000.json" \
	-- "$WORKLOADS/recurse" 2 20000
expect_rc 0
check budget "$tmp/recurse20000.json" "$tmp/recurse20000.folded" --comm recurse \
	--frames 20001 --budget 8192
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two threads with distinct chains, recorded with --tid: each chain belongs to
# its own thread id only, is never mixed with the other's frames, and bottoms
# out at clone3;start_thread.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record threads --tid -F 999 -o "$tmp/threads.folded" -- "$WORKLOADS/threads" 3
expect_rc 0
tid_a=$(sed -n 's/^threads: thread a is tid \([0-9]*\)$/\1/p' "$tmp/threads.err")
tid_b=$(sed -n 's/^threads: thread b is tid \([0-9]*\)$/\1/p' "$tmp/threads.err")
if [ -z "$tid_a" ] || [ -z "$tid_b" ]; then
	fail "the threads workload did not print its thread ids"
	finish
fi
# A frame of either chain, as a whole frame (not inside, say, an offset 0x2a1).
frame_a='(?<![^;])(?:thread_a|a1|a2|leaf_a)(?![^;])'
frame_b='(?<![^;])(?:thread_b|b1|b2|leaf_b)(?![^;])'
never="$frame_a.*$frame_b|$frame_b.*$frame_a"
check stacks "$tmp/threads.folded" --comm threads --leaf leaf_a --tid "$tid_a" \
	--expect '{THREAD};thread_a;a1;a2;leaf_a' --min-ratio 0.99 --min-samples 150 --never "$never"
check stacks "$tmp/threads.folded" --comm threads --leaf leaf_b --tid "$tid_b" \
	--expect '{THREAD};thread_b;b1;b2;leaf_b' --min-ratio 0.99 --min-samples 150
finish

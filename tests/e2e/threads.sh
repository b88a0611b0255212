#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two threads with distinct chains, recorded with --tid: each chain belongs to
# its own thread id only, is never mixed with the other's frames, and bottoms
# out at clone3;start_thread. Thread B is named worker-b: its stacks begin
# with the process's name all the same, --tid adds "(worker-b)", report
# --comm finds it by either name, and the pprof labels keep both. -t TID
# samples that thread alone.
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
grep -q "^threads-[0-9]*/$tid_b (worker-b);" "$tmp/threads.folded" ||
	fail "--tid: thread b's stacks do not say (worker-b)"
grep -q "^threads-[0-9]*/$tid_a (" "$tmp/threads.folded" &&
	fail "--tid: thread a, named as the process, got a thread name"

# Without --tid, the process's name first, for both threads; --comm takes either name.
record names -F 999 -o "$tmp/names.pb.gz" -- "$WORKLOADS/threads" 1
expect_rc 0
"$UNWPROF" report -i "$tmp/names.pb.gz" --folded > "$tmp/names.folded"
grep -q '^worker-b' "$tmp/names.folded" && fail "a stack begins with the thread's name"
check stacks "$tmp/names.folded" --comm threads --leaf leaf_b \
	--expect '{THREAD};thread_b;b1;b2;leaf_b' --min-ratio 0.99 --min-samples 50
"$UNWPROF" report -i "$tmp/names.pb.gz" --comm worker-b --folded --with-tid > "$tmp/b.folded" ||
	fail "report --comm worker-b found nothing"
grep -q 'leaf_a' "$tmp/b.folded" && fail "report --comm worker-b: thread a's samples"
grep -q "/[0-9]* (worker-b);.*leaf_b" "$tmp/b.folded" ||
	fail "pprof lost the thread's name: $(head -c 300 "$tmp/b.folded")"
"$UNWPROF" report -i "$tmp/names.pb.gz" --comm threads --folded > "$tmp/all.folded"
grep -q 'leaf_a' "$tmp/all.folded" && grep -q 'leaf_b' "$tmp/all.folded" ||
	fail "report --comm threads: not both threads"

# -t TID: that thread of a running process, and no other. It runs until the
# test ends: record's start may take seconds on a busy machine.
start_workload threads 60
for _ in $(seq 50); do
	grep -q 'thread b is tid' "$tmp/threads.bg.out" && break
	sleep 0.1
done
tid=$(sed -n 's/^threads: thread b is tid \([0-9]*\)$/\1/p' "$tmp/threads.bg.out")
record one -t "$tid" -F 999 -d 1 --tid -o "$tmp/one.folded"
expect_rc 0
check stacks "$tmp/one.folded" --comm threads --leaf leaf_b --tid "$tid" \
	--expect '{THREAD};thread_b;b1;b2;leaf_b' --min-ratio 0.99 --min-samples 200
grep -q 'leaf_a' "$tmp/one.folded" && fail "-t $tid: samples of the other thread"
record nothread -t 999999999 -d 1
expect_rc 1
grep -q 'no such thread' "$tmp/nothread.err" || fail "-t: no message for a missing thread"
finish

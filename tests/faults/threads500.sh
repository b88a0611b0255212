#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A process with 500 threads, all on the CPU, recorded with -p and --tid.
# Injected: 500 threads sharing two CPUs. Expected: no crash; nearly every
# thread is sampled, every sample belongs to one of the process's threads
# and has the complete chain of its thread. Lost: nothing (counted if any).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

nr=500
start_fault many_threads "$nr" 3
pid=$workload_pid
# Every thread has printed its tid once it exists.
for _ in $(seq 300); do
	[ "$(grep -c '^tid ' "$tmp/many_threads.bg.out")" -ge "$nr" ] && break
	sleep 0.1
done
grep '^tid ' "$tmp/many_threads.bg.out" | cut -d' ' -f2 | sort -u > "$tmp/tids"
[ "$(wc -l < "$tmp/tids")" -eq "$nr" ] || fail "the workload started $(wc -l < "$tmp/tids") threads"

# The threads spin for 3 s from the moment unwprof samples, within its 5 s.
record_bg threads --tid -F 999 -d 5 -p "$pid" -o "$tmp/threads.folded"
wait_sampling "$(unwprof_pid)"
kill -USR1 "$pid"
record_wait threads
expect_rc 0
kill -0 "$pid" 2> /dev/null || fail "the workload did not survive the recording"
# 1500 samples: a quarter of what 3 s on two CPUs give, so a loaded machine passes.
check stacks "$tmp/threads.folded" --comm many_threads --leaf spin_leaf \
	--expect '{THREAD};worker;spin_outer;spin_leaf' --min-ratio 0.99 --min-samples 1500
# comm-PID/TID heads: the threads seen, each one of the workload's (its main
# thread too, which takes SIGUSR1 and may be sampled doing so).
{ cat "$tmp/tids"; echo "$pid"; } | sort -u > "$tmp/threads"
sed -n "s|^many_threads-$pid/\([0-9]*\);.*|\1|p" "$tmp/threads.folded" | sort -u > "$tmp/seen"
strangers=$(comm -23 "$tmp/seen" "$tmp/threads" | wc -l)
[ "$strangers" -eq 0 ] || fail "$strangers thread ids in the profile are not the workload's"
seen=$(wc -l < "$tmp/seen")
echo "threads sampled: $seen of $nr" >&2
# The threads take most of the two CPUs: about 10 samples each in 3 s, so
# a thread with none is rare even when other work takes most of the CPUs.
[ "$seen" -ge $((nr * 9 / 10)) ] || fail "only $seen of the $nr threads were sampled"
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Attaching to processes that are already running: -p profiles one (folded
# stacks on stdout) and leaves it running; -p A,B profiles both, --pid names
# each in its stacks, --no-kernel leaves out kernel frames.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'

start_workload chain-pie 40
pid_a=$workload_pid
start_workload chain-nopie 40
pid_b=$workload_pid
sleep 0.5

record one -p "$pid_a" -d 2 -F 999
expect_rc 0
check stacks "$tmp/one.out" --comm chain-pie --leaf leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 200
if grep -q '^chain-nopie' "$tmp/one.out"; then
	fail "-p $pid_a: stacks of chain-nopie ($pid_b), which is not a target"
fi
kill -0 "$pid_a" 2> /dev/null || fail "the attached process did not survive the recording"

record two --pid --no-kernel -p "$pid_a,$pid_b" -d 2 -F 999
expect_rc 0
for head in "chain-pie-$pid_a" "chain-nopie-$pid_b"; do
	grep -q "^$head;" "$tmp/two.out" || fail "-p $pid_a,$pid_b --pid: no stack starts with $head"
	check stacks "$tmp/two.out" --comm "${head%-*}" --leaf leaf --expect "$chain" \
		--min-ratio 0.99 --min-samples 100
done
if grep -q '_\[k\]' "$tmp/two.out"; then
	fail "--no-kernel: kernel frames in the output"
	grep -m 3 '_\[k\]' "$tmp/two.out" >&2
fi
finish

# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the fault tests: tests/e2e/lib.sh (skip or fail without root
# and BPF, record, check, expect_rc, start_workload, finish), plus:
#   start_fault NAME ARGS...  runs a workload of this folder in the
#                        background, pid in $workload_pid
#   record_bg NAME ARGS...    starts `unwprof record ARGS...` like record,
#                        in the background; record_wait NAME waits for it
#                        and sets $rc; unwprof_pid prints its pid
#   wait_sampling PID         waits up to 60 s until unwprof PID samples (its
#                        perf events are open)
#   elapsed STDERR            the seconds of "recorded N s" in a summary
#   wait_for FILE TEXT [S]    waits up to S seconds (default 30) for TEXT in FILE
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

if [ ! -d "${FAULTS:-}" ]; then
	echo "FAIL: FAULTS must name the build directory of tests/faults" >&2
	exit 1
fi

start_fault() {
	local name=$1

	shift
	"$FAULTS/$name" "$@" > "$tmp/$name.bg.out" 2> "$tmp/$name.bg.err" &
	workload_pid=$!
	background+=("$workload_pid")
}

record_bg() {
	local name=$1

	shift
	echo "\$ unwprof record $* &" >&2
	python3 "$e2e_dir/e2e.py" run --out "$tmp/$name.out" --err "$tmp/$name.err" \
		--rc "$tmp/$name.rc" -- "$UNWPROF" record "$@" &
	record_pid=$!
}

record_wait() {
	local name=$1

	wait "$record_pid" || fails=$((fails + 1))
	rc=$(cat "$tmp/$name.rc" 2> /dev/null || echo -1)
	show_log "$tmp/$name.err"
}

# The unwprof process that record_bg started (a child of e2e.py run).
unwprof_pid() {
	local pid

	for _ in $(seq 50); do
		pid=$(pgrep -P "$record_pid" -x unwprof | head -n 1)
		if [ -n "$pid" ]; then
			echo "$pid"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

wait_sampling() {
	# One listing a poll: a system-wide unwprof holds thousands of
	# descriptors, and a readlink of each, forked, took longer on a busy
	# machine than a short run samples.
	for _ in $(seq 600); do
		ls -l "/proc/$1/fd" 2> /dev/null | grep -q 'perf_event' && return 0
		if [ ! -d "/proc/$1" ]; then
			fail "unwprof $1 ended before it was seen sampling"
			return 1
		fi
		sleep 0.1
	done
	fail "unwprof $1 did not start sampling in 60 s"
	return 1
}

elapsed() {
	sed -n 's/^unwprof: recorded \([0-9.]*\) s.*/\1/p' "$1"
}

wait_for() {
	for _ in $(seq $((${3:-30} * 10))); do
		grep -q "$2" "$1" 2> /dev/null && return 0
		sleep 0.1
	done
	fail "$1: no '$2' after ${3:-30} s"
	return 1
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory of `unwprof record -a` against the length of the run, under a storm
# of short-lived processes: two loops run tests/workloads/forker (200
# children that exit at once, again and again) for the whole run, so every
# second brings hundreds of processes to read, build tables for, sample,
# symbolize and forget. Each duration is one run; for each it prints
#
#   processes    short-lived processes the storm started
#   samples      samples taken, and processes the summary saw
#   RSS mid-run  VmRSS of unwprof halfway through the run
#   peak RSS     VmHWM of unwprof at its exit (after writing the profile)
#   BPF maps     sum of the memlock of the maps unwprof holds
#   lost         samples lost, and process events lost (ring buffer full)
#   exec->tables the time from an exec to its tables in BPF: median, p99 (ms)
#
# and, last, how the peak RSS and the processes of the longest run compare
# with those of the shortest. Memory that follows the processes seen grows
# like the processes; bounded memory stays about flat; unwprof keeps pace
# when nothing is lost and exec->tables stays short.
#
# Usage (root): tests/bench/storm.sh [BUILD_DIR [SECONDS...]]   (default: build 20 60)
#   STRESS=1   stress-ng beside the storm: a CPU hog on every core
#   NICE=N     unwprof at nice N (e.g. -5: ahead of the hogs and the storm)
# Not run by `meson test`: it takes the sum of the durations, and it loads
# both CPUs.
set -euo pipefail

build=${1:-build}
shift || true
durations=("$@")
[ ${#durations[@]} -gt 0 ] || durations=(20 60)
unwprof=$build/cmd/unwprof
forker=$build/tests/workloads/forker

die() {
	echo "storm.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events)"
[ -x "$unwprof" ] || die "$unwprof not found: build first (ninja -C $build)"
[ -x "$forker" ] || die "$forker not found: build first (ninja -C $build)"
command -v bpftool > /dev/null || die "bpftool is not installed"

tmp=$(mktemp -d)
storms=()
cleanup() {
	rm -f "$tmp"/run-*
	for pid in "${storms[@]}"; do
		wait "$pid" 2> /dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=../faults/storm_lib.sh
source "$(dirname "$0")/../faults/storm_lib.sh"

# status_kib PID FIELD: a field of /proc/PID/status, in KiB.
status_kib() {
	sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/"$1"/status 2> /dev/null || true
}

# One run of $1 seconds; prints "PROCESSES SAMPLES SEEN MID_RSS PEAK_RSS MAP_BYTES".
run() {
	local secs=$1 pid mid maps peak=0 hwm

	touch "$tmp/run-a" "$tmp/run-b"
	storm "$tmp/run-a" "$forker" &
	storms+=($!)
	storm "$tmp/run-b" "$forker" &
	storms+=($!)
	if [ "${STRESS:-0}" = 1 ]; then
		stress-ng --cpu 0 --timeout "$((secs + 5))s" > /dev/null 2>&1 &
		storms+=($!)
	fi
	nice -n "${NICE:-0}" "$unwprof" record -a -F 999 -d "$secs" -o "$tmp/storm.pb.gz" \
		--stats-json "$tmp/stats.json" 2> "$tmp/err" &
	pid=$!
	sleep $((secs / 2))
	mid=$(status_kib "$pid" VmRSS)
	maps=$(map_memory "$pid")
	# VmHWM until the process is gone: the last reading is its peak.
	while kill -0 "$pid" 2> /dev/null; do
		hwm=$(status_kib "$pid" VmHWM)
		[ -n "$hwm" ] && peak=$hwm
		sleep 0.05
	done
	wait "$pid" || die "unwprof record failed: $(cat "$tmp/err")"
	rm -f "$tmp/run-a" "$tmp/run-b"
	for s in "${storms[@]}"; do
		wait "$s" || true
	done
	storms=()
	python3 - "$tmp/stats.json" "$(($(cat "$tmp/run-a.count") + $(cat "$tmp/run-b.count")))" \
		"$mid" "$peak" "$maps" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ms = lambda v: f"{v / 1e6:.1f}" if v is not None else "-"
print(sys.argv[2], s["samples"], s["processes"], *sys.argv[3:], s["lost"], s["events_lost"],
      ms(s["exec_to_tables_ns_p50"]), ms(s["exec_to_tables_ns_p99"]))
PY
}

[ "${STRESS:-0}" != 1 ] || command -v stress-ng > /dev/null || die "stress-ng is not installed"
echo "storm.sh: ${STRESS:+stress-ng --cpu 0 beside, }unwprof at nice ${NICE:-0}" >&2
printf '%8s %10s %9s %9s %12s %12s %10s %12s %15s\n' seconds processes samples seen \
	"RSS mid-run" "peak RSS" "BPF maps" "lost (ev.)" "exec->tables"
results=()
for secs in "${durations[@]}"; do
	read -r procs samples seen mid peak maps lost events p50 p99 < <(run "$secs")
	printf '%8s %10s %9s %9s %9s KiB %8s KiB %6s KiB %7s (%s) %6s / %s ms\n' "$secs" "$procs" \
		"$samples" "$seen" "$mid" "$peak" $((maps / 1024)) "$lost" "$events" "$p50" "$p99"
	results+=("$procs $peak")
done
if [ ${#results[@]} -gt 1 ]; then
	read -r first_procs first_peak <<< "${results[0]}"
	read -r last_procs last_peak <<< "${results[-1]}"
	python3 -c "import sys; p0, r0, p1, r1 = map(float, sys.argv[1:]); \
print(f'longest vs shortest run: {p1 / p0:.2f}x the processes, {r1 / r0:.2f}x the peak RSS')" \
		"$first_procs" "$first_peak" "$last_procs" "$last_peak"
fi

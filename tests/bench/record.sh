#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark of `unwprof record` against the same workload without profiling
# and against `perf record --call-graph dwarf`, all measured in the same run.
#
# Usage (root): tests/bench/record.sh [BUILD_DIR]     (default: build)
# Environment:  ROUNDS  work of the demo workload per run (default 20)
#               REPEAT  runs of each configuration, the median is kept (default 3)
#
# The workload is tests/workloads/demo with a fixed amount of work (ROUNDS),
# not a fixed duration, so a slowdown shows as a longer run; demo prints its
# own wall and CPU time on stderr, which is what "target time" means below.
# The configurations are run in turn, REPEAT times, and for each the run with
# the median target CPU time is shown (CPU time, because on a shared machine
# the wall time mostly measures the other load). Measured:
#
#   target slowdown      target wall and CPU time under unwprof at 99 Hz and
#                        999 Hz, and under perf record --call-graph dwarf at
#                        the same rates, divided by the time without profiling
#   BPF ns per sample    with kernel.bpf_stats_enabled=1 (restored afterwards):
#                        run_time_ns / run_cnt of unwprof's perf_event program
#                        (the counters `bpftool prog show` prints), last read
#                        before the target exits; runs count every sample on
#                        every CPU, the target's or not
#   end to output        from the target's exit to unwprof's exit, when the
#                        folded output is written (for perf: `perf script`,
#                        which is what turns perf.data into stacks)
#   peak RSS             VmHWM of the unwprof process (its child excluded)
#   BPF map memory       sum of the memlock of the maps unwprof holds (what
#                        `bpftool map show` prints as memlock)
#   output size          folded output of unwprof, perf.data of perf
#   start to sampling    from unwprof's start to its first sample (the perf
#                        events attached, the command let go), as -v prints
#                        it: BPF load and verification, the command's tables;
#                        the goal is 200 ms for a program using libc only
#
# Needs root, python3 and perf (Debian: linux-perf). It is not run by
# `meson test`: it takes REPEAT x 5 runs of the workload plus the profilers'
# start-up and output.
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-20}
repeat=${REPEAT:-3}
unwprof=$build/cmd/unwprof
demo=$build/tests/workloads/demo

die() {
	echo "record.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events, sysctl)"
[ -x "$unwprof" ] || die "$unwprof not found: build first (ninja -C $build)"
[ -x "$demo" ] || die "$demo not found: build first (ninja -C $build)"
for tool in python3 perf; do
	command -v "$tool" > /dev/null || die "$tool is not installed"
done

tmp=$(mktemp -d)
stats_before=$(sysctl -n kernel.bpf_stats_enabled)
restore() {
	sysctl -q -w kernel.bpf_stats_enabled="$stats_before" || true
	rm -rf "$tmp"
}
trap restore EXIT
sysctl -q -w kernel.bpf_stats_enabled=1

# "WALL CPU" seconds demo prints on stderr: "demo: N rounds in W s (C s of CPU), ...".
target_time() {
	sed -n 's/^demo: [0-9]* rounds in \([0-9.]*\) s (\([0-9.]*\) s of CPU).*/\1 \2/p' "$1"
}

now() {
	date +%s.%N
}


# watch_target PID OUT: follows unwprof (PID) while it records demo, its
# child, polling every 5 ms, and writes to OUT one line
#   "TARGET_EXIT_TIME NS_PER_SAMPLE RUNS MAP_BYTES PEAK_RSS_KIB"
# once PID has exited. The BPF figures are the ones `bpftool prog show` and
# `bpftool map show` print (run_time_ns, run_cnt, memlock), read from
# /proc/PID/fdinfo of the fds unwprof holds: that names unwprof's own
# objects even while other BPF tools run, and the last reading before the
# target exits covers all of its samples. Runs in the background.
watch_target() {
	python3 - "$1" "$2" << 'EOF'
import os, sys, time
pid, out = sys.argv[1], sys.argv[2]

child = None

def stat(task):
    """(comm, state, ppid) of a task."""
    text = open(f"/proc/{task}/stat").read()
    rest = text[text.rindex(")") + 2:].split()
    return text[text.index("(") + 1:text.rindex(")")], rest[0], rest[1]

def child_state():
    """State of demo, the child of pid; None once it is gone."""
    global child
    if child is None:
        for task in filter(str.isdigit, os.listdir("/proc")):
            try:
                comm, _, ppid = stat(task)
            except (OSError, ValueError):
                continue
            if ppid == pid and comm == "demo":
                child = task
                break
        if child is None:
            return None
    try:
        return stat(child)[1]
    except (OSError, ValueError):
        return None

def bpf_figures():
    ns = runs = 0
    maps = {}
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        fields = {}
        for line in open(f"/proc/{pid}/fdinfo/{fd}"):
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        if "link_id" in fields:
            continue
        if fields.get("prog_type") == "7":      # BPF_PROG_TYPE_PERF_EVENT
            ns += int(fields.get("run_time_ns", 0))
            runs += int(fields.get("run_cnt", 0))
        if "map_id" in fields:
            maps[fields["map_id"]] = int(fields.get("memlock", 0))
    return ns, runs, sum(maps.values())

seen_child = False
end = None
figures = (0, 0, 0)
hwm = 0
while True:
    try:
        state = child_state()
        if end is None:
            if state is not None and state != "Z":
                seen_child = True
                figures = bpf_figures()
            elif seen_child:
                end = time.time()
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    except (OSError, ValueError):
        if not os.path.exists(f"/proc/{pid}"):
            break
    time.sleep(0.005)
ns, runs, mem = figures
print(f"{end or 0:.6f}", f"{ns / runs:.0f}" if runs else "n/a", runs, mem, hwm, file=open(out, "w"))
EOF
}

# Each run_* prints one line: "WALL CPU END_TO_OUTPUT OUTPUT_BYTES PEAK_RSS_KIB
# BPF_NS_PER_SAMPLE BPF_RUNS BPF_MAP_BYTES", "-" where it does not apply.

run_plain() {
	"$demo" "$rounds" 2> "$tmp/plain.err"
	echo "$(target_time "$tmp/plain.err") - - - - - - -"
}

run_unwprof() {
	local freq=$1 p=$tmp/unwprof pid end_run end_out ns runs mem hwm

	"$unwprof" record --quiet -v -F "$freq" -o "$p.folded" -- "$demo" "$rounds" \
		> "$p.out" 2> "$p.err" &
	pid=$!
	watch_target "$pid" "$p.watch" &
	if ! wait "$pid"; then
		cat "$p.err" >&2
		die "unwprof record -F $freq failed"
	fi
	end_out=$(now)
	wait
	read -r end_run ns runs mem hwm < "$p.watch"
	echo "$(target_time "$p.err")" \
		"$(awk -v a="$end_run" -v b="$end_out" 'BEGIN { printf "%.3f", b - a }')" \
		"$(stat -c %s "$p.folded")" "$hwm" "$ns" "$runs" "$mem" \
		"$(sed -n 's/^unwprof: sampling .*(\([0-9]*\) ms to start)$/\1/p' "$p.err")"
}

# perf writes perf.data as it goes; `perf script` is what turns it into stacks.
run_perf() {
	local freq=$1 p=$tmp/perf t0 t1

	perf record -q -F "$freq" --call-graph dwarf -o "$p.data" -- "$demo" "$rounds" \
		> "$p.out" 2> "$p.err" || die "perf record failed: $(cat "$p.err")"
	t0=$(now)
	perf script -i "$p.data" > /dev/null 2>&1 || die "perf script failed"
	t1=$(now)
	echo "$(target_time "$p.err")" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
		"$(stat -c %s "$p.data")" - - - - -
}

configs=(plain u99 p99 u999 p999)
run_config() {
	case $1 in
	plain) run_plain ;;
	u*) run_unwprof "${1#u}" ;;
	p*) run_perf "${1#p}" ;;
	esac
}

echo "demo $rounds rounds, median of $repeat runs, $(nproc) CPUs, $(uname -r)"
# Interleaved, so that a change in the machine's load spreads over every configuration.
for ((i = 0; i < repeat; i++)); do
	for c in "${configs[@]}"; do
		run_config "$c" >> "$tmp/runs.$c"
	done
done

# The run with the median CPU time of each configuration.
declare -A row
for c in "${configs[@]}"; do
	row[$c]=$(sort -g -k2,2 "$tmp/runs.$c" | awk -v n="$repeat" 'NR == int((n + 1) / 2)')
done
col() {
	echo "${row[$1]}" | awk -v c="$2" '{ print $c }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b > 0) printf "%.4g", a / b; else print "-" }'
}
line() {
	printf '%-26s %11s %11s %11s %11s %11s\n' "$@"
}
# line_of TITLE COLUMN: that column of every configuration.
line_of() {
	line "$1" "$(col plain "$2")" "$(col u99 "$2")" "$(col p99 "$2")" "$(col u999 "$2")" \
		"$(col p999 "$2")"
}
# slowdown_of TITLE COLUMN: that column of every configuration over the baseline's.
slowdown_of() {
	local base

	base=$(col plain "$2")
	line "$1" "1" "$(ratio "$(col u99 "$2")" "$base")" "$(ratio "$(col p99 "$2")" "$base")" \
		"$(ratio "$(col u999 "$2")" "$base")" "$(ratio "$(col p999 "$2")" "$base")"
}

echo
line "" "no profiler" "unwprof 99" "perf 99" "unwprof 999" "perf 999"
line_of "target wall time (s)" 1
line_of "target CPU time (s)" 2
slowdown_of "slowdown, wall (x)" 1
slowdown_of "slowdown, CPU (x)" 2
line_of "end to output (s)" 3
line_of "output size (bytes)" 4
line_of "unwprof peak RSS (KiB)" 5
line_of "BPF ns per sample" 6
line_of "BPF program runs" 7
line_of "BPF map memory (bytes)" 8
line_of "start to sampling (ms)" 9
echo
echo "unwprof / perf at 999 Hz: end to output $(ratio "$(col u999 3)" "$(col p999 3)")," \
	"output size $(ratio "$(col u999 4)" "$(col p999 4)")," \
	"target CPU time $(ratio "$(col u999 2)" "$(col p999 2)")"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark of `unwprof record` against the same workload without profiling
# and against `perf record --call-graph dwarf`, all measured in the same run.
#
# Usage (root): tests/bench/record.sh [BUILD_DIR]     (default: build)
# Environment:  ROUNDS  work of the demo workload per run (default 20)
#               REPEAT  runs of each configuration, the median is kept (default 3)
#               RATES   sampling rates in Hz, the highest last (default "99 999");
#                       a high rate (4999) shows what a sample costs the target
#
# The workload is tests/workloads/demo with a fixed amount of work (ROUNDS),
# not a fixed duration, so a slowdown shows as a longer run; demo prints its
# own wall and CPU time on stderr, which is what "target time" means below.
# The configurations are run in turn, REPEAT times, and for each the run with
# the median target CPU time is shown (CPU time, because on a shared machine
# the wall time mostly measures the other load). Measured:
#
#   target slowdown      target wall and CPU time under unwprof and under
#                        perf record --call-graph dwarf at each rate, and under
#                        perf record with no stacks at the highest rate (the
#                        cost of the sampling interrupt alone, the floor),
#                        divided by the time without profiling. Each run is
#                        also paired with the run without profiler of the same
#                        alternation: median, mean and range of the ratios
#   BPF ns per sample    with kernel.bpf_stats_enabled=1 (restored afterwards):
#                        run_time_ns / run_cnt of unwprof's perf_event program
#                        (the counters `bpftool prog show` prints), as its
#                        --stats-json gives them; runs count every sample on
#                        every CPU, the target's or not
#   end to output        from the target's exit to unwprof's exit, when the
#                        folded output is written (for perf: `perf script`,
#                        which is what turns perf.data into stacks)
#   peak RSS             VmHWM of the unwprof process (its child excluded),
#                        --stats-json's peak_rss_bytes
#   BPF map memory       sum of the memlock of unwprof's maps at their
#                        fullest, --stats-json's bpf_map_bytes
#   output size          folded output of unwprof, perf.data of perf
#   start to sampling    from unwprof's start to its first sample (the perf
#                        events attached, the command let go), as -v prints
#                        it: BPF load and verification, the command's tables;
#                        the goal is 200 ms for a program using libc only
#
# Needs root, python3 and perf (Debian: linux-perf). It is not run by
# `meson test`: it takes REPEAT x (2 x rates + 2) runs of the workload plus the profilers'
# start-up and output.
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-20}
repeat=${REPEAT:-3}
rates=${RATES:-99 999}
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


# watch_target PID OUT: waits, without polling, for the exit of demo, the
# child of unwprof (PID), and writes its time to OUT. It looks for the child
# every 5 ms until it finds it (unwprof starts it before its tables are
# built), then blocks on a pidfd: a watcher that polled all through the run
# would take the other CPU's time from under the target, which perf's runs
# do not have. Runs in the background.
watch_target() {
	python3 - "$1" "$2" << 'EOF'
import os, select, sys, time
pid, out = sys.argv[1], sys.argv[2]

def child_of(parent):
    """The pid of demo, the child of parent, or None."""
    for task in filter(str.isdigit, os.listdir("/proc")):
        try:
            text = open(f"/proc/{task}/stat").read()
        except OSError:
            continue
        rest = text[text.rindex(")") + 2:].split()
        if rest[1] == parent and text[text.index("(") + 1:text.rindex(")")] == "demo":
            return int(task)
    return None

child = None
while child is None and os.path.exists(f"/proc/{pid}"):
    child = child_of(pid)
    if child is None:
        time.sleep(0.005)
end = 0.0
if child is not None:
    try:
        fd = os.pidfd_open(child)
        select.select([fd], [], [])
        end = time.time()
    except ProcessLookupError:
        pass
print(f"{end:.6f}", file=open(out, "w"))
EOF
}

# stats_field FILE KEY: a field of unwprof's --stats-json, "-" when null.
stats_field() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print("-" if v is None else (round(v) if isinstance(v, float) else v))' "$1" "$2"
}

# Each run_* prints one line: "WALL CPU END_TO_OUTPUT OUTPUT_BYTES PEAK_RSS_KIB
# BPF_NS_PER_SAMPLE BPF_RUNS BPF_MAP_BYTES", "-" where it does not apply.

run_plain() {
	"$demo" "$rounds" 2> "$tmp/plain.err"
	echo "$(target_time "$tmp/plain.err") - - - - - - -"
}

run_unwprof() {
	local freq=$1 p=$tmp/unwprof pid end_run end_out

	"$unwprof" record --quiet -v -F "$freq" -o "$p.folded" --stats-json "$p.json" \
		-- "$demo" "$rounds" > "$p.out" 2> "$p.err" &
	pid=$!
	watch_target "$pid" "$p.watch" &
	if ! wait "$pid"; then
		cat "$p.err" >&2
		die "unwprof record -F $freq failed"
	fi
	end_out=$(now)
	wait
	read -r end_run < "$p.watch"
	echo "$(target_time "$p.err")" \
		"$(awk -v a="$end_run" -v b="$end_out" 'BEGIN { printf "%.3f", b - a }')" \
		"$(stat -c %s "$p.folded")" \
		"$(($(stats_field "$p.json" peak_rss_bytes) / 1024))" \
		"$(stats_field "$p.json" bpf_ns_per_sample)" \
		"$(stats_field "$p.json" samples)" \
		"$(stats_field "$p.json" bpf_map_bytes)" \
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

# The cost of sampling alone, with no stack: perf's event, the same timer
# interrupt both profilers take, its sample only the registers. On a virtual
# machine the interrupt is most of a sample's cost.
run_perf_no_stacks() {
	local freq=$1 p=$tmp/perfn

	perf record -q -F "$freq" -o "$p.data" -- "$demo" "$rounds" > "$p.out" 2> "$p.err" ||
		die "perf record failed: $(cat "$p.err")"
	echo "$(target_time "$p.err")" - "$(stat -c %s "$p.data")" - - - - -
}

configs=(plain)
titles=("no profiler")
for rate in $rates; do
	configs+=("u$rate" "p$rate")
	titles+=("unwprof $rate" "perf $rate")
done
top=${rates##* }
configs+=("n$top")
titles+=("no stacks $top")
run_config() {
	case $1 in
	plain) run_plain ;;
	u*) run_unwprof "${1#u}" ;;
	p*) run_perf "${1#p}" ;;
	n*) run_perf_no_stacks "${1#n}" ;;
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
	printf '%-26s' "$1"
	shift
	printf ' %13s' "$@"
	echo
}
# line_of TITLE COLUMN: that column of every configuration.
line_of() {
	local c cells=()

	for c in "${configs[@]}"; do
		cells+=("$(col "$c" "$2")")
	done
	line "$1" "${cells[@]}"
}
# slowdown_of TITLE COLUMN: that column of every configuration over the baseline's.
slowdown_of() {
	local base c cells=()

	base=$(col plain "$2")
	for c in "${configs[@]}"; do
		cells+=("$(ratio "$(col "$c" "$2")" "$base")")
	done
	line "$1" "${cells[@]}"
}

# paired: each configuration's CPU time over that of the run without
# profiler in the same alternation, as median, mean and range: a change of
# the machine's pace during the benchmark moves both runs of a pair.
paired() {
	local i

	echo
	echo "target CPU time over the run without profiler of the same alternation"
	for ((i = 1; i < ${#configs[@]}; i++)); do
		paste "$tmp/runs.plain" "$tmp/runs.${configs[i]}" | python3 -c '
import statistics, sys
r = sorted(float(l.split()[10]) / float(l.split()[1]) for l in sys.stdin)
print(f"  {sys.argv[1]:<14} median {statistics.median(r):.3f}, mean {statistics.mean(r):.3f},"
      f" range {r[0]:.3f}-{r[-1]:.3f}")' "${titles[i]}"
	done
}

echo
line "" "${titles[@]}"
line_of "target wall time (s)" 1
line_of "target CPU time (s)" 2
slowdown_of "slowdown, wall (x)" 1
slowdown_of "slowdown, CPU (x)" 2
line_of "end to output (s)" 3
line_of "output size (bytes)" 4
line_of "unwprof peak RSS (KiB)" 5
line_of "BPF ns per sample" 6
line_of "samples" 7
line_of "BPF map memory (bytes)" 8
line_of "start to sampling (ms)" 9
echo
echo "unwprof / perf at $top Hz: end to output $(ratio "$(col "u$top" 3)" "$(col "p$top" 3)")," \
	"output size $(ratio "$(col "u$top" 4)" "$(col "p$top" 4)")," \
	"target CPU time $(ratio "$(col "u$top" 2)" "$(col "p$top" 2)")"
paired

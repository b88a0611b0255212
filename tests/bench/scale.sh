#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How the start, the memory and the BPF time per sample of
# `unwprof record -a` grow with the processes on the machine, and whether
# they grow with the distinct files rather than with the processes.
#
# The script builds 30 programs into its temporary directory: one template
# compiled 30 times with -DVARIANT=k, each with a chain of k % 7 + 3
# functions named after k (vK_step0 -> ... -> vK_leaf) and FILLERS (default
# 500) functions of frames of their own sizes (about 2,000 rows of unwind
# table a program), so every program is a file with its own code, build-id
# and unwind tables. Each process of them
# does 30 us of work through its chain, then sleeps (nanosleep) at least
# 10 ms, longer when its own CPU clock says it has taken more than 0.3 % of a
# CPU since it began: a wakeup can cost more than the work (40 us on a
# virtual machine), and 300 processes must take about one CPU, not all of
# them. They die with the script (PR_SET_PDEATHSIG, and the trap kills them).
#
# For each configuration (processes, programs) = (50, 30), (150, 30),
# (300, 30) and (300, 10), the last the contrast of (300, 30) with a third
# of the files, the processes are started round-robin over the programs,
# left 1 s to settle, then profiled with
#   unwprof record -a -d SECONDS_EACH -F 99 -v --quiet --stats-json FILE
# with kernel.bpf_stats_enabled=1 (the previous value restored afterwards),
# and killed before the next configuration. One row per configuration:
#
#   start         from unwprof's start to its first sample, as -v prints it
#   peak RSS      VmHWM of unwprof at its exit, --stats-json's peak_rss_bytes
#   BPF maps      memlock of unwprof's maps at their fullest (bpf_map_bytes)
#   rows          unwind table rows loaded into BPF (rows_loaded)
#   BPF ns        per sample of unwprof's perf_event program: the mean
#                 (run_time_ns / run_cnt, bpf_ns_per_sample), and the p50 and
#                 p99 of its own histogram (bpf_ns_sample_p50, _p99); every
#                 sample counts, idle ones (the cheapest) included
#   samples       samples taken, on every CPU
#   seen          processes the summary saw (processes): those sampled
#   lost          samples lost, and process events lost (ring buffer full)
#   busy          CPUs busy on average during the run, from /proc/stat
#   storm         short-lived processes the storm started (with STORM=1), in
#                 steps of 200 (the forker runs that finished)
#
# then how (300, 30) compares with (50, 30), and with (300, 10), and the
# peak RSS (and BPF map memory) each process beyond the first 50 costs
# unwprof: (RSS(300, 30) - RSS(50, 30)) / 250. What follows the files stays
# about flat from 50 to 300 processes over the same 30 programs and shrinks
# from (300, 30) to (300, 10); what follows the processes grows sixfold from
# 50 to 300 and stays from (300, 30) to (300, 10). Run it on an otherwise
# idle machine: unwprof profiles every process, so the rows, the memory and
# the processes seen count whatever else runs (a build beside it adds its
# compilers' tables, and shows as busy CPUs beyond the processes').
#
# Usage (root): tests/bench/scale.sh [BUILD_DIR]     (default: build)
# Environment:  SECONDS_EACH  duration of each recording (default 10)
#               REPEAT        runs of each configuration, in alternation; each
#                             cell is the median of its runs (default 1)
#               FILLERS       functions a program has besides its chain (500)
#               STORM=1       beside the processes, the storm of storm.sh: two
#                             loops running tests/workloads/forker (200
#                             children that exit at once, again and again)
#
# Needs root, a C compiler and python3. Not run by `meson test`: it takes
# REPEAT x 4 x (SECONDS_EACH + about 3) seconds plus a few seconds to
# compile, about a minute by default, and keeps about one CPU busy (both
# with STORM=1).
set -euo pipefail

build=${1:-build}
secs=${SECONDS_EACH:-10}
repeat=${REPEAT:-1}
storm_on=${STORM:-0}
unwprof=$build/cmd/unwprof
forker=$build/tests/workloads/forker
configs=("50 30" "150 30" "300 30" "300 10")
nprograms=30
fillers=${FILLERS:-500}

die() {
	echo "scale.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events, sysctl)"
[ -x "$unwprof" ] || die "$unwprof not found: build first (ninja -C $build)"
command -v cc > /dev/null || die "cc is not installed"
command -v python3 > /dev/null || die "python3 is not installed"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "REPEAT=$repeat: not a positive number"
if [ "$storm_on" = 1 ]; then
	[ -x "$forker" ] || die "$forker not found: build first (ninja -C $build)"
fi

# start_population N M: N processes, round-robin over programs 0..M-1.
start_population() {
	local i

	for ((i = 0; i < $1; i++)); do
		"$tmp/scale$((i % $2))" > /dev/null &
		population+=($!)
	done
}

stop_population() {
	[ ${#population[@]} -gt 0 ] || return 0
	# Quiet, bash's "Killed" notices included.
	{
		kill -KILL "${population[@]}" || true
		wait "${population[@]}" || true
	} 2> /dev/null
	population=()
}

tmp=$(mktemp -d)
population=()
storms=()
stats_before=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	stop_population
	rm -f "$tmp"/run-a "$tmp"/run-b
	for pid in "${storms[@]}"; do
		wait "$pid" 2> /dev/null || true
	done
	sysctl -q -w kernel.bpf_stats_enabled="$stats_before" || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=../faults/storm_lib.sh
source "$(dirname "$0")/../faults/storm_lib.sh"

# program_source K: the C of program K, its chain k % 7 + 3 functions long.
program_source() {
	local k=$1 depth=$(($1 % 7 + 3)) i next

	cat << 'EOF'
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#define NOINLINE __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")
#define WORK_NS 30000LL		/* of work between two sleeps */
#define PERIOD_NS 10000000LL	/* at least between two bursts of work */
#define SHARE_PPM 3000LL	/* of a CPU at most, wakeups included */
static volatile unsigned long sink;
EOF
	cat << EOF
NOINLINE static unsigned long v${k}_leaf(unsigned long x)
{
	for (int i = 0; i < 200 + VARIANT; i++) {
		x = x * 6364136223846793005UL + VARIANT;
		KEEP();
	}
	return x;
}
EOF
	for ((i = depth - 1; i >= 0; i--)); do
		next=v${k}_step$((i + 1))
		[ "$i" -lt $((depth - 1)) ] || next=v${k}_leaf
		cat << EOF
NOINLINE static unsigned long v${k}_step$i(unsigned long x)
{
	unsigned long r = $next(x + $i);

	KEEP();
	return r * $((2 * i + 3)) + VARIANT;
}
EOF
	done
	# The bulk of the file: FILLERS functions of frames of their own sizes,
	# reached through a table, so that the file's unwind table is a real one
	# (thousands of rows) and not the few of the chain.
	echo "#define FILLERS $fillers"
	seq 0 $((fillers - 1)) | awk -v k="$k" '{
		printf "NOINLINE static unsigned long v%d_f%d(unsigned long x)\n{\n", k, $1
		printf "\tvolatile unsigned char pad[%d];\n\n", 160 + ($1 * 7 + k) % 400
		printf "\tpad[x %% sizeof(pad)] = (unsigned char)x;\n\tKEEP();\n"
		printf "\treturn pad[(x >> 8) %% sizeof(pad)] + x * %d;\n}\n", $1 + 1
	}'
	echo "static unsigned long (*const fillers[FILLERS])(unsigned long) = {"
	seq 0 $((fillers - 1)) | awk -v k="$k" '{ printf "\tv%d_f%d,\n", k, $1 }'
	echo "};"
	cat << EOF
static long long ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	long long wall0, cpu0, t, sleep;
	unsigned long x = VARIANT;

	/* Killed with the script, however it ends. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return 1;
	wall0 = ns(CLOCK_MONOTONIC);
	cpu0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	for (;;) {
		t = ns(CLOCK_MONOTONIC);
		do
			x = v${k}_step0(x) + fillers[x % FILLERS](x);
		while (ns(CLOCK_MONOTONIC) - t < WORK_NS);
		sink = x;
		/* Until the CPU taken so far is SHARE_PPM of the time. */
		t = ns(CLOCK_MONOTONIC);
		sleep = (ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) * 1000000 / SHARE_PPM - (t - wall0);
		if (sleep < PERIOD_NS)
			sleep = PERIOD_NS;
		nanosleep(&(struct timespec){ sleep / 1000000000, sleep % 1000000000 }, NULL);
	}
}
EOF
}

# cpu_ticks: "BUSY TOTAL" clock ticks of all CPUs so far, from /proc/stat.
cpu_ticks() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat
}

# One run with N processes over M programs; prints "N M START_MS BUSY STORM"
# then the fields of --stats-json that the table shows.
run() {
	local n=$1 m=$2 b0 t0 b1 t1 start count=-

	start_population "$n" "$m"
	sleep 1
	if [ "$storm_on" = 1 ]; then
		touch "$tmp/run-a" "$tmp/run-b"
		rm -f "$tmp/run-a.count" "$tmp/run-b.count"
		storm "$tmp/run-a" "$forker" &
		storms+=($!)
		storm "$tmp/run-b" "$forker" &
		storms+=($!)
	fi
	read -r b0 t0 < <(cpu_ticks)
	"$unwprof" record -a -d "$secs" -F 99 -v --quiet -o "$tmp/out.folded" \
		--stats-json "$tmp/s.json" 2> "$tmp/err" ||
		die "unwprof record failed ($n processes, $m programs): $(tail -5 "$tmp/err")"
	read -r b1 t1 < <(cpu_ticks)
	if [ "$storm_on" = 1 ]; then
		rm -f "$tmp/run-a" "$tmp/run-b"
		for pid in "${storms[@]}"; do
			wait "$pid" || true
		done
		storms=()
		count=$(($(cat "$tmp/run-a.count" 2> /dev/null || echo 0) +
			$(cat "$tmp/run-b.count" 2> /dev/null || echo 0)))
	fi
	stop_population
	start=$(sed -n 's/^unwprof: sampling .*(\([0-9]*\) ms to start)$/\1/p' "$tmp/err")
	python3 - "$tmp/s.json" "$n" "$m" "${start:--}" \
		"$(awk -v b="$((b1 - b0))" -v t="$((t1 - t0))" -v c="$(nproc)" \
			'BEGIN { printf "%.2f", t ? b / t * c : 0 }')" "$count" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
keys = ("peak_rss_bytes", "bpf_map_bytes", "rows_loaded", "bpf_ns_per_sample",
        "bpf_ns_sample_p50", "bpf_ns_sample_p99", "samples", "processes", "lost",
        "events_lost")
print(*sys.argv[2:], *("-" if s[k] is None else s[k] for k in keys))
PY
}

echo "scale.sh: building $nprograms programs" >&2
for ((k = 0; k < nprograms; k++)); do
	program_source "$k" > "$tmp/scale$k.c"
done
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
seq 0 $((nprograms - 1)) | xargs -P "$(nproc)" -I{} sh -c \
	'cc -O2 -fomit-frame-pointer -g -DVARIANT=$1 -o "$0/scale$1" "$0/scale$1.c"' "$tmp" {} ||
	die "cc failed on one of the programs"

sysctl -q -w kernel.bpf_stats_enabled=1
for ((r = 1; r <= repeat; r++)); do
	for c in "${configs[@]}"; do
		read -r n m <<< "$c"
		echo "scale.sh: run $r/$repeat: $n processes over $m programs" >&2
		run "$n" "$m" >> "$tmp/runs.$n-$m"
	done
done

echo "$(nproc) CPUs, $(uname -r), ${secs} s at 99 Hz per run, median of $repeat run(s)," \
	"$([ "$storm_on" = 1 ] && echo "STORM: forker x2 beside" || echo "no storm")"
python3 - "$tmp" "${configs[@]}" << 'PY'
import statistics, sys

tmp, configs = sys.argv[1], sys.argv[2:]
# Fields of a run, as run() prints them.
names = ("procs", "progs", "start", "busy", "storm", "rss", "maps", "rows", "ns", "p50",
         "p99", "samples", "seen", "lost", "events")


def median(values):
    values = [float(v) for v in values if v != "-"]
    return statistics.median_low(values) if values else None


rows = {}
for c in configs:
    n, m = c.split()
    runs = [line.split() for line in open(f"{tmp}/runs.{n}-{m}")]
    rows[c] = {k: median(r[i] for r in runs) for i, k in enumerate(names)}


def cell(v, fmt="{:.0f}", scale=1):
    return "-" if v is None else fmt.format(v / scale)


head = ("processes", "programs", "start ms", "RSS MiB", "maps MiB", "rows",
        "BPF ns", "p50", "p99", "samples", "seen", "lost (ev.)", "busy", "storm")
widths = (9, 8, 8, 8, 8, 8, 7, 7, 7, 7, 6, 10, 5, 6)
print(" ".join(f"{h:>{w}}" for h, w in zip(head, widths)))
for c in configs:
    r = rows[c]
    cells = (cell(r["procs"]), cell(r["progs"]), cell(r["start"]),
             cell(r["rss"], "{:.1f}", 2**20), cell(r["maps"], "{:.1f}", 2**20),
             cell(r["rows"]), cell(r["ns"]), cell(r["p50"]), cell(r["p99"]),
             cell(r["samples"]), cell(r["seen"]),
             f"{cell(r['lost'])} ({cell(r['events'])})", cell(r["busy"], "{:.2f}"),
             cell(r["storm"]))
    print(" ".join(f"{x:>{w}}" for x, w in zip(cells, widths)))


def ratio(a, b, key):
    x, y = rows[a][key], rows[b][key]
    return "-" if x is None or not y else f"{x / y:.2f}x"


def compare(a, b):
    return (f"{ratio(a, b, 'rss')} peak RSS, {ratio(a, b, 'maps')} BPF maps,"
            f" {ratio(a, b, 'rows')} rows, {ratio(a, b, 'start')} start,"
            f" {ratio(a, b, 'ns')} BPF ns")


print()
print(f"(300, 30) vs (50, 30), 6x the processes: {compare('300 30', '50 30')}")
print(f"(300, 30) vs (300, 10), 3x the files:    {compare('300 30', '300 10')}")


def per_process(key):
    return (rows["300 30"][key] - rows["50 30"][key]) / 250 / 1024


print(f"RSS per extra process: {per_process('rss'):.1f} KiB"
      f" (BPF maps: {per_process('maps'):.1f} KiB)")
PY

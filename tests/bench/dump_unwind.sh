#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark of `unwprof dump-unwind` against GNU readelf on one large file.
# Builds nothing; not run by `meson test`.
#
# usage: tests/bench/dump_unwind.sh [-n RUNS] [UNWPROF [FILE]]
#
#   UNWPROF  the unwprof binary (default: build/cmd/unwprof under the source
#            tree, else the first build*/cmd/unwprof found there)
#   FILE     the ELF file (default: /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1,
#            Debian package libllvm14)
#   -n RUNS  runs per command, the best one counts (default 5)
#   HYPERFINE=0 in the environment: time with the shell loop even when
#            hyperfine (Debian package hyperfine) is installed
#
# In the same run it times, best of RUNS (hyperfine when installed, else a
# loop over `date +%s%N`):
#   readelf   readelf --debug-dump=frames-interp FILE > /dev/null
#   text      unwprof dump-unwind FILE > /dev/null
#   summary   unwprof dump-unwind --summary FILE  (the table is built, not printed)
#   startup   unwprof dump-unwind --help          (process start, no ELF)
# and prints the times, the ratio readelf/text (the requirement: at least
# 10x), the table build time (summary - startup: it still includes opening
# the ELF file) and that time per row. The requirement for libLLVM-14.so.1
# is a table build under 50 ms. Exit status, for libLLVM-14.so.1: 0 when both
# requirements hold, 1 when one does not; for other files 0; 2 on a usage or
# tool error. On a loaded machine the absolute times mean little: compare
# the ratios, or rerun with more runs.
set -euo pipefail

runs=5
if [ "${1:-}" = "-n" ]; then
	runs=${2:?-n needs a number}
	shift 2
fi
case $runs in
'' | *[!0-9]* | 0)
	echo "dump_unwind.sh: -n needs a positive number" >&2
	exit 2
	;;
esac

src=$(cd "$(dirname "$0")/../.." && pwd)
unwprof=${1:-}
if [ -z "$unwprof" ]; then
	for cand in "$src/build/cmd/unwprof" "$src"/build*/cmd/unwprof; do
		if [ -x "$cand" ]; then
			unwprof=$cand
			break
		fi
	done
fi
file=${2:-/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1}
readelf=${READELF:-readelf}

if [ -z "$unwprof" ]; then
	echo "dump_unwind.sh: no unwprof binary: pass its path or build into $src/build" >&2
	exit 2
fi
if [ ! -x "$unwprof" ]; then
	echo "dump_unwind.sh: $unwprof is not an executable" >&2
	exit 2
fi
if [ ! -r "$file" ]; then
	echo "dump_unwind.sh: cannot read $file (apt-get install libllvm14, or pass FILE)" >&2
	exit 2
fi
if ! command -v "$readelf" > /dev/null; then
	echo "dump_unwind.sh: $readelf not found (apt-get install binutils)" >&2
	exit 2
fi

# Best wall time of "$@" over $runs runs, in microseconds. The output goes to
# /dev/null; the exit status is ignored (readelf exits 1 on unrelated complaints).
# bash 5's EPOCHREALTIME costs no fork; older shells pay for two `date` runs.
best_us() {
	local best='' t0 t1 us i
	for ((i = 0; i < runs; i++)); do
		if [ -n "${EPOCHREALTIME:-}" ]; then
			t0=${EPOCHREALTIME/[.,]/}
			"$@" > /dev/null 2>&1 || true
			t1=${EPOCHREALTIME/[.,]/}
			us=$((10#$t1 - 10#$t0))
		else
			t0=$(date +%s%N)
			"$@" > /dev/null 2>&1 || true
			t1=$(date +%s%N)
			us=$(((t1 - t0) / 1000))
		fi
		if [ -z "$best" ] || [ "$us" -lt "$best" ]; then
			best=$us
		fi
	done
	echo "$best"
}

# The same with hyperfine: its minimum, in microseconds.
best_us_hyperfine() {
	local json
	json=$(mktemp)
	hyperfine -N --style none --warmup 1 --runs "$runs" -i --output null \
		--export-json "$json" -- "$(printf '%q ' "$@")" > /dev/null 2>&1
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["results"][0]["min"]*1e6))' "$json"
	rm -f "$json"
}

use_hyperfine() {
	[ "${HYPERFINE:-1}" != 0 ] && command -v hyperfine > /dev/null && command -v python3 > /dev/null
}

time_us() {
	if use_hyperfine; then
		best_us_hyperfine "$@"
	else
		best_us "$@"
	fi
}

ms() {
	awk -v us="$1" 'BEGIN { printf "%.1f ms", us / 1000 }'
}

summary=$("$unwprof" dump-unwind --summary --json "$file") || {
	echo "dump_unwind.sh: unwprof dump-unwind --summary --json $file failed" >&2
	exit 2
}
rows=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["row_count"])' "$summary")
fdes=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["fdes"])' "$summary")

echo "file:    $file ($(stat -c %s "$file") bytes, $fdes FDEs, $rows rows)"
echo "unwprof: $unwprof"
echo "method:  best of $runs runs$(use_hyperfine && echo ' (hyperfine)')"

t_readelf=$(time_us "$readelf" --debug-dump=frames-interp "$file")
t_text=$(time_us "$unwprof" dump-unwind "$file")
t_summary=$(time_us "$unwprof" dump-unwind --summary "$file")
t_startup=$(time_us "$unwprof" dump-unwind --help)
t_build=$((t_summary > t_startup ? t_summary - t_startup : 0))

printf '%-52s %12s\n' "readelf --debug-dump=frames-interp" "$(ms "$t_readelf")"
printf '%-52s %12s\n' "unwprof dump-unwind (text)" "$(ms "$t_text")"
printf '%-52s %12s\n' "unwprof dump-unwind --summary" "$(ms "$t_summary")"
printf '%-52s %12s\n' "unwprof dump-unwind --help (startup)" "$(ms "$t_startup")"
printf '%-52s %12s\n' "table build (summary - startup, includes ELF open)" "$(ms "$t_build")"

awk -v r="$t_readelf" -v t="$t_text" -v s="$t_summary" -v b="$t_build" -v n="$rows" 'BEGIN {
	printf "ratio readelf / dump-unwind text:    %.1fx (required: >= 10x)\n", r / (t ? t : 1)
	printf "ratio readelf / dump-unwind summary: %.1fx\n", r / (s ? s : 1)
	if (n > 0)
		printf "table build per row:                 %.1f ns\n", b * 1000 / n
}'

# The requirements are stated for libLLVM-14.so.1; other files only print figures.
[ "$(basename "$file")" = "libLLVM-14.so.1" ] || exit 0
status=0
if [ "$t_readelf" -lt $((10 * t_text)) ]; then
	echo "FAIL: dump-unwind text is less than 10x faster than readelf"
	status=1
fi
if [ "$t_build" -ge 50000 ]; then
	echo "FAIL: the table build of libLLVM-14.so.1 takes 50 ms or more"
	status=1
fi
[ $status = 0 ] && echo "OK: both requirements hold"
exit $status

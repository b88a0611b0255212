#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory taken to write a profile of very deep, distinct stacks, in each
# output format: the peak RSS that `record --stats-json` reports
# (peak_rss_bytes, VmHWM once the output is written) and the size of the
# output, for folded, pprof and SVG.
#
# Usage (root): tests/bench/output_memory.sh [BUILD_DIR]     (default: build)
# Environment:  DEPTH    depth of the recursion (default 3000)
#               SECONDS_ run time of the program per format (default 8)
#               FREQ     sampling frequency (default 999)
#
# The program is generated: sixteen functions with names as long as C++'s
# (60 characters), each calling one of the sixteen chosen by a random
# number, DEPTH deep, then spinning at the leaf. Every descent takes a path
# of its own, so nearly every sample is a stack of its own, as in a compiler
# recursing through its passes; what the stacks keep of their depth is the
# unwinder's to decide, the writers' memory must not follow it.
#
# Needs root and a C compiler. Not run by `meson test`.
set -euo pipefail

build=${1:-build}
depth=${DEPTH:-3000}
secs=${SECONDS_:-8}
freq=${FREQ:-999}
unwprof=$build/cmd/unwprof

die() {
	echo "output_memory.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events)"
[ -x "$unwprof" ] || die "$unwprof not found: build first (ninja -C $build)"
command -v cc > /dev/null || die "cc is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The generated program: deep_N(x, depth) calls deep_<random>(x', depth - 1).
{
	cat << 'EOF'
#include <stdlib.h>
#include <time.h>
#define NOINLINE __attribute__((noinline, noipa))
#define KEEP() __asm__ volatile("" ::: "memory")
typedef unsigned long (*step_fn)(unsigned long, int);
extern step_fn steps[16];
static volatile unsigned long sink;
NOINLINE static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		KEEP();
	}
	return x;
}
EOF
	for i in $(seq 0 15); do
		cat << EOF
NOINLINE unsigned long a_function_name_as_long_as_a_cxx_template_one_step_$(printf %02d "$i")(unsigned long x, int d)
{
	unsigned long r = d ? steps[(x >> 33) & 15](x * 2862933555777941757UL + 3037000493UL, d - 1) : leaf(x);

	KEEP();
	return r + $i;
}
EOF
	done
	printf 'step_fn steps[16] = {\n'
	for i in $(seq 0 15); do
		printf '\ta_function_name_as_long_as_a_cxx_template_one_step_%02d,\n' "$i"
	done
	cat << 'EOF'
};
int main(int argc, char **argv)
{
	double secs = atof(argv[1]);
	int depth = atoi(argv[2]);
	struct timespec t0, t;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = steps[x & 15](x + 1, depth);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	sink = x;
	return 0;
}
EOF
} > "$tmp/deep.c"
cc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -o "$tmp/deep" "$tmp/deep.c"

printf '%-8s %10s %12s %14s %10s\n' format samples stacks "peak RSS MiB" "out MiB"
for fmt in folded pprof svg; do
	"$unwprof" record -F "$freq" -o "$tmp/out.$fmt" --format "$fmt" \
		--stats-json "$tmp/$fmt.json" -- "$tmp/deep" "$secs" "$depth" \
		> /dev/null 2> "$tmp/$fmt.err" || die "record ($fmt) failed: $(tail -3 "$tmp/$fmt.err")"
	python3 - "$tmp/$fmt.json" "$tmp/out.$fmt" "$fmt" << 'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
size = os.path.getsize(sys.argv[2])
stacks = "-"
if sys.argv[3] == "folded":
    stacks = sum(1 for _ in open(sys.argv[2]))
print(f"{sys.argv[3]:<8} {s['samples']:>10} {stacks:>12} "
      f"{s['peak_rss_bytes'] / 2**20:>14.1f} {size / 2**20:>10.1f}")
PY
done

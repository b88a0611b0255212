#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark of source lines and inlined frames (core/symbols/dwarf_lines.c) against
# one batched binutils addr2line run over the same addresses, in the same
# run. Builds nothing; not run by `meson test`.
#
# usage: tests/bench/lines.sh [-n RUNS] [-a ADDRESSES] [BUILD_DIR [FILE]]
#
#   BUILD_DIR     where tests/oracle/src_lookup was built (default: build)
#   FILE          a DWARF-rich library (default: the libpython3.13 of pyenv,
#                 else libc.so.6, whose DWARF is in libc6-dbg's debug file)
#   -a ADDRESSES  distinct code addresses, drawn once with a fixed seed from
#                 objdump -d (default 20000)
#   -n RUNS       runs of each, the median counts (default 5)
#
# Both resolve every address to its inline chain, function names, files and
# lines (unwprof: tests/oracle/src_lookup, the symbolizer's own path, which
# looks a batch up in address order as the recorder does at each drain;
# binutils: addr2line -a -f -i -C -e FILE); both print in the input's order. Prints wall and CPU time and peak
# RSS of each, medians and ranges, and the ratios addr2line / unwprof. The
# goal is 10x; on a loaded machine the CPU figures are the ones to compare.
# What lines cost a recording: tests/bench/lines_record.py.
set -euo pipefail

runs=5
count=20000
while getopts n:a: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	a) count=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=${1:-build}
file=${2:-}
if [ -z "$file" ]; then
	for f in ~/.pyenv/versions/3.13*/lib/libpython3.13.so.1.0 /lib/x86_64-linux-gnu/libc.so.6; do
		if [ -f "$f" ]; then
			file=$f
			break
		fi
	done
fi
lookup=$build/tests/oracle/src_lookup
[ -x "$lookup" ] || { echo "lines.sh: $lookup not built" >&2; exit 2; }
command -v addr2line > /dev/null || { echo "lines.sh: addr2line not found" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objdump -d --no-show-raw-insn "$file" | awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' |
	sort -u | shuf -n "$count" --random-source=<(yes) > "$tmp/addrs"
echo "$file: $(wc -l < "$tmp/addrs") distinct addresses, $runs runs each"

# Both tools run alternately, each run timed to the microsecond (os.wait4's
# rusage): /usr/bin/time's 10 ms steps were a fifth of unwprof's time.
python3 - "$runs" "$tmp/addrs" "$lookup" "$file" << 'PY'
import os, statistics, subprocess, sys, time

runs, addrs, lookup, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
tools = {
    "unwprof": [lookup, path],
    "addr2line": ["addr2line", "-a", "-f", "-i", "-C", "-e", path],
}

def one(argv):
    """wall s, cpu s, peak RSS KiB of one run, stdin the addresses, stdout dropped"""
    with open(addrs, "rb") as stdin, open(os.devnull, "wb") as out:
        start = time.monotonic()
        p = subprocess.Popen(argv, stdin=stdin, stdout=out)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"lines.sh: {argv[0]} failed")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

rows = {name: [] for name in tools}
for _ in range(runs):
    for name, argv in tools.items():
        rows[name].append(one(argv))
med = {}
for name, r in rows.items():
    cols = list(zip(*r))
    med[name] = [statistics.median(c) for c in cols]
    print(f"{name:10s} wall {med[name][0] * 1e3:.1f} ms ({min(cols[0]) * 1e3:.1f}-{max(cols[0]) * 1e3:.1f}), "
          f"cpu {med[name][1] * 1e3:.1f} ms ({min(cols[1]) * 1e3:.1f}-{max(cols[1]) * 1e3:.1f}), "
          f"peak RSS {med[name][2] / 1024:.1f} MiB")
u, a = med["unwprof"], med["addr2line"]
print(f"addr2line / unwprof: wall {a[0] / u[0]:.2f}x, cpu {a[1] / u[1]:.2f}x, "
      f"RSS {a[2] / u[2]:.2f}x")
PY

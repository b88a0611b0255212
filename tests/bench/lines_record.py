#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
What source lines and inlined frames cost a recording: `unwprof record` with
them (the default) against `--no-lines`, alternately in one run.

usage: tests/bench/lines_record.py [-n RUNS] [BUILD_DIR]    (as root)

  end of run   the demo workload recorded at 999 Hz, from the command's exit
               to the profile written (the three end steps `record -v`
               prints): with 1 round (0.1 s: the first drain is the last, so
               every DWARF file is read after the exit) and with 20 (the
               demo of setup.sh, 1.7 s)
  peak RSS     `record -a -d 3` of the whole machine, the summary's peak RSS

Prints medians and ranges, and the ratios lines / no lines; the goal is at
most 1.5x for both. The DWARF read is the demo's libc, whose debug file is
libc6-dbg's (compressed sections, inflated whole), and for -a whatever the
machine runs. Not run by `meson test`.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

END_STEPS = ("sampling stopped, the last samples drained", "the profile symbolized",
             "the profile written")


def record(unwprof, args, out):
    """stderr of one `unwprof record`, which must succeed"""
    p = subprocess.run([unwprof, "record", "-o", out] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"lines_record.py: record {' '.join(args)} failed:\n{p.stderr}")
    return p.stderr


def end_ms(stderr):
    total = 0
    for step in END_STEPS:
        m = re.search(re.escape(step) + r": (\d+) ms", stderr)
        if not m:
            sys.exit(f"lines_record.py: no '{step}' in record -v's output")
        total += int(m.group(1))
    return total


def peak_rss_mib(stderr):
    m = re.search(r"peak RSS\s+([\d.]+) MiB", stderr)
    if not m:
        sys.exit("lines_record.py: no peak RSS in the summary")
    return float(m.group(1))


def show(name, unit, with_lines, without):
    med = [statistics.median(v) for v in (with_lines, without)]
    print(f"{name:28s} lines {med[0]:7.1f} {unit} ({min(with_lines):.1f}-{max(with_lines):.1f}), "
          f"--no-lines {med[1]:7.1f} {unit} ({min(without):.1f}-{max(without):.1f}): "
          f"{med[0] / max(med[1], 0.5):.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5, help="runs of each (default 5)")
    ap.add_argument("build", nargs="?", default="build")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("lines_record.py: record needs root")
    unwprof = os.path.join(a.build, "cmd/unwprof")
    demo = os.path.join(a.build, "tests/workloads/demo")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.pb.gz")
        for rounds in ("1", "20"):
            runs = {True: [], False: []}
            for _ in range(a.n):
                for lines in (True, False):
                    args = ["-v", "-F", "999"] + ([] if lines else ["--no-lines"])
                    runs[lines].append(end_ms(record(unwprof, args + ["--", demo, rounds], out)))
            show(f"end of run, demo {rounds}", "ms", runs[True], runs[False])
        runs = {True: [], False: []}
        for _ in range(a.n):
            for lines in (True, False):
                args = ["-a", "-d", "3"] + ([] if lines else ["--no-lines"])
                runs[lines].append(peak_rss_mib(record(unwprof, args, out)))
        show("peak RSS, record -a -d 3", "MiB", runs[True], runs[False])


if __name__ == "__main__":
    main()

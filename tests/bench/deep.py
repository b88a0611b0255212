#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark of deep stacks: what a frame past 1024 costs, and what a deep compile pays.

Usage (root): tests/bench/deep.py [BUILD_DIR [BASE_BUILD_DIR]]   (default: build)
Environment:  REPEAT  rounds, each configuration once a round in turn (default 3)
              ONLY    "frames" or "clang": one part only

Per frame: `record -F 999 -d 2 -- recurse 3 D` (tests/workloads/recurse.c) at
D = 1024 and D = 4096; the BPF time of a sample is the median of BPF's own
histogram of sample times (--stats-json bpf_ns_sample_p50), and a frame's cost
is (median at 4096 - median at 1024) / 3072. With BASE_BUILD_DIR (a build of
another commit, e.g. a worktree), both builds alternate, and each round's
ratio of the two is printed: the machine is shared, and its pace changes
from minute to minute by more than the difference measured.

Deep compile: `clang -O2 -c` of a function of 2000 nested ifs
(tests/programs/gen.py nested), whose stacks reach some 10,000 frames, three
times in a row. Its times, wall and CPU (its children's, which holds the
time the kernel spends in their samples), as a wrapper measures them: alone, under
`unwprof record` at 99 and 999 Hz, and under `perf record --call-graph
dwarf` at the same rates (when perf is installed); slowdown = time / median
time alone. The profilers' own start and end are not in it. Also the share of
the samples walked to their root: unwprof's summary (walked), and for perf
the samples of clang whose outermost frame is a root (_start, a thread's
clone3, ld.so's _dl_start_user), from `perf script`.

Figures are medians of REPEAT rounds, means beside them where they differ,
and the spread (max / min).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
BASE = sys.argv[2] if len(sys.argv) > 2 else None
REPEAT = int(os.environ.get("REPEAT", "3"))
ONLY = os.environ.get("ONLY", "")
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPTHS = (1024, 4096)
NESTED = 2000
COMPILES = 3
ROOTS = ("_start", "clone3", "_dl_start_user")


def unwprof(build):
    return os.path.join(build, "cmd", "unwprof")


def summary(stats_path):
    with open(stats_path) as f:
        return json.load(f)


def sample_ns(build, depth, tmp):
    """Median BPF ns of a sample of recurse DEPTH, and the share walked."""
    stats = os.path.join(tmp, "deep.json")
    recurse = os.path.join(BUILD, "tests", "workloads", "recurse")
    subprocess.run([unwprof(build), "record", "-F", "999", "-d", "2", "--stats-json", stats,
                    "-o", os.path.join(tmp, "deep.folded"), "--", recurse, "3", str(depth)],
                   check=True, capture_output=True)
    s = summary(stats)
    return s["bpf_ns_sample_p50"], s["walked"]["percent"]


def spread(values):
    return max(values) / min(values) if min(values) > 0 else float("inf")


def describe(values, unit, digits=1):
    med, mean = statistics.median(values), statistics.mean(values)
    text = f"median {med:.{digits}f}{unit}"
    if abs(mean - med) > 0.05 * abs(med):
        text += f", mean {mean:.{digits}f}{unit}"
    return text + f" (spread {spread(values):.2f}x, {len(values)} runs)"


def per_frame(tmp):
    builds = [("build", BUILD)] + ([("base", BASE)] if BASE else [])
    slopes = {name: [] for name, _ in builds}
    walked = {name: [] for name, _ in builds}
    for r in range(REPEAT):
        for name, build in builds:
            (lo, _), (hi, w) = (sample_ns(build, d, tmp) for d in DEPTHS)
            slopes[name].append((hi - lo) / (DEPTHS[1] - DEPTHS[0]))
            walked[name].append(w)
        line = ", ".join(f"{n} {slopes[n][-1]:.1f} ns" for n, _ in builds)
        if BASE:
            line += f", ratio {slopes['build'][-1] / slopes['base'][-1]:.2f}"
        print(f"  round {r + 1}: per frame past {DEPTHS[0]}: {line}", flush=True)
    for name, _ in builds:
        print(f"per frame, {name}: {describe(slopes[name], ' ns')}; walked at {DEPTHS[1]}: "
              f"{statistics.median(walked[name]):.2f}%")
    if BASE:
        ratios = [a / b for a, b in zip(slopes["build"], slopes["base"])]
        print(f"per frame, build / base: {describe(ratios, '', 2)}")


def perf_roots(data):
    """Samples of clang in perf's data, and how many end at a root."""
    env = dict(os.environ, DEBUGINFOD_URLS="")
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym"], env=env,
                         capture_output=True, text=True, check=True).stdout
    samples = rooted = 0
    for block in out.split("\n\n"):
        lines = [l.split() for l in block.strip().splitlines()]
        if not lines or lines[0] != ["clang"]:
            continue
        samples += 1
        outer = lines[-1][1] if len(lines) > 1 and len(lines[-1]) > 1 else ""
        rooted += outer in ROOTS
    return samples, rooted


# Runs a command N times and prints the time it took, wall and CPU (its children's).
COMPILER = """
import resource, subprocess, sys, time
t = time.monotonic()
for _ in range(int(sys.argv[1])):
    subprocess.run(sys.argv[2:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"compiled {time.monotonic() - t:.4f} {r.ru_utime + r.ru_stime:.4f}", file=sys.stderr)
"""


def timed(cmd):
    """The wall and CPU seconds of the compiles (COMPILER), as they measured them."""
    err = subprocess.run(cmd, check=True, capture_output=True, text=True).stderr
    for line in err.splitlines():
        if line.startswith("compiled "):
            return tuple(float(v) for v in line.split()[1:3])
    raise RuntimeError(f"no time measured by {cmd[0]}: {err[-500:]}")


def deep_compile(tmp):
    if not shutil.which("clang"):
        print("deep compile: skipped, no clang")
        return
    src, obj = os.path.join(tmp, "nested.c"), os.path.join(tmp, "nested.o")
    subprocess.run([sys.executable, os.path.join(SRC, "tests", "programs", "gen.py"), "nested",
                    src, str(NESTED)], check=True)
    clang = [sys.executable, "-c", COMPILER, str(COMPILES), "clang", "-O2",
             "-fbracket-depth=100000", "-c", src, "-o", obj]
    stats, data = os.path.join(tmp, "clang.json"), os.path.join(tmp, "perf.data")
    configs = [("alone", lambda hz: clang, None)]
    for name, build in [("unwprof", BUILD)] + ([("unwprof base", BASE)] if BASE else []):
        configs.append((name, lambda hz, b=build: [
            unwprof(b), "record", "-F", hz, "--stats-json", stats, "-o",
            os.path.join(tmp, "clang.folded"), "--"] + clang, "unwprof"))
    if shutil.which("perf"):
        configs.append(("perf dwarf", lambda hz: [
            "perf", "record", "-q", "-F", hz, "--call-graph", "dwarf", "-o", data,
            "--"] + clang, "perf"))
    else:
        print("deep compile: perf not installed, perf's figures left out")
    times, rooted = {}, {}
    for _ in range(REPEAT):
        for hz in ("99", "999"):
            for name, cmd, kind in configs:
                key = (name, hz if kind else "")
                if kind is None and hz == "999":
                    continue
                times.setdefault(key, []).append(timed(cmd(hz)))
                if kind == "unwprof":
                    rooted.setdefault(key, []).append(summary(stats)["walked"]["percent"])
                elif kind == "perf":
                    n, r = perf_roots(data)
                    rooted.setdefault(key, []).append(100.0 * r / n if n else 0.0)
    alone = [statistics.median(t[i] for t in times[("alone", "")]) for i in (0, 1)]
    for i, what in enumerate(("wall", "CPU")):
        print(f"deep compile alone, {what}: "
              f"{describe([t[i] for t in times[('alone', '')]], ' s', 2)}")
    for (name, hz), ts in times.items():
        if name == "alone":
            continue
        print(f"deep compile, {name} at {hz} Hz: walked to the root "
              f"{statistics.median(rooted[(name, hz)]):.1f}%")
        for i, what in enumerate(("wall", "CPU")):
            print(f"  slowdown, {what}: {describe([t[i] / alone[i] for t in ts], 'x', 3)}")


def main():
    if os.geteuid() != 0:
        sys.exit("deep.py: run as root (BPF and perf events)")
    if not os.access(unwprof(BUILD), os.X_OK):
        sys.exit(f"deep.py: no {unwprof(BUILD)}: build first (meson compile -C {BUILD})")
    if BASE and not os.access(unwprof(BASE), os.X_OK):
        sys.exit(f"deep.py: no {unwprof(BASE)}")
    with tempfile.TemporaryDirectory(prefix="unwprof-deep-") as tmp:
        if ONLY in ("", "frames"):
            per_frame(tmp)
        if ONLY in ("", "clang"):
            deep_compile(tmp)


if __name__ == "__main__":
    main()

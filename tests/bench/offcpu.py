#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The cost of record --off-cpu to the program it profiles.

    tests/bench/offcpu.py BUILD [--repeat N] [--rounds N] [--base BASE_BUILD]

A context-switch storm, tests/workloads/pingpong (two threads passing a byte
over pipes: every round trip is two blocks and two switches), timed by
itself, run alternately N times (default 7) without a profiler and under:

    cpu       record -F 99                      (no --off-cpu)
    off       record -F 99 --off-cpu            (the defaults: walks of blocks
                                                 of 100 us or more, 1000 a second
                                                 a CPU)
    off-min0  --off-cpu --off-cpu-min 0         (every block may be walked,
                                                 still 1000 walks a second)
    off-all   --off-cpu --off-cpu-min 0 --off-cpu-walks 1000000   (all walked)

For each it prints the median and the mean of the round trip's time, the
spread (max/min) of its runs, the slowdown against the runs without a
profiler (ratio of medians), and the blocks walked and unwalked a second
(--stats-json). With --base, it also times the on-CPU sampler alone in
BASE_BUILD and BUILD, alternately: record -F 999 of tests/workloads
chain-pie, BPF ns per sample (the sampler's own histogram, median and
p99): the on-CPU path with --off-cpu off should cost what it did.

Root; not run by `meson test` (it loads both CPUs for minutes).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

CONFIGS = {
    "none": None,
    "cpu": ["-F", "99"],
    "off": ["-F", "99", "--off-cpu"],
    "off-min0": ["-F", "99", "--off-cpu", "--off-cpu-min", "0"],
    "off-all": ["-F", "99", "--off-cpu", "--off-cpu-min", "0", "--off-cpu-walks", "1000000"],
}


def run_pingpong(unwprof, workloads, args, rounds, tmp):
    cmd = [os.path.join(workloads, "pingpong"), str(rounds)]
    stats = os.path.join(tmp, "stats.json")
    if args is not None:
        cmd = [unwprof, "record", "--quiet", "--stats-json", stats, "-o",
               os.path.join(tmp, "out.folded")] + args + ["--"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    m = re.search(r"pingpong: (\d+) round trips in (\d+) ns", r.stderr)
    if r.returncode or not m:
        sys.exit(f"offcpu.py: {' '.join(cmd)} failed: {r.stderr[-500:]}")
    ns = int(m.group(2)) / int(m.group(1))
    off = None
    if args is not None and "--off-cpu" in args:
        with open(stats) as f:
            off = json.load(f)["off_cpu"]
    return ns, off


def sampler_ns(build, tmp):
    unwprof = os.path.join(build, "cmd", "unwprof")
    chain = os.path.join(build, "tests", "workloads", "chain-pie")
    stats = os.path.join(tmp, "sampler.json")
    subprocess.run([unwprof, "record", "--quiet", "-F", "999", "--stats-json", stats, "-o",
                    os.path.join(tmp, "chain.folded"), "--", chain, "3"], check=True,
                   capture_output=True, timeout=120)
    with open(stats) as f:
        s = json.load(f)
    return s["bpf_ns_sample_p50"], s["bpf_ns_sample_p99"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--rounds", type=int, default=200000)
    p.add_argument("--base")
    a = p.parse_args()
    unwprof = os.path.join(a.build, "cmd", "unwprof")
    workloads = os.path.join(a.build, "tests", "workloads")
    times = {k: [] for k in CONFIGS}
    offs = {k: [] for k in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.repeat):
            for name, args in CONFIGS.items():
                ns, off = run_pingpong(unwprof, workloads, args, a.rounds, tmp)
                times[name].append(ns)
                if off:
                    offs[name].append(off)
        base = statistics.median(times["none"])
        print(f"pingpong, {a.rounds} round trips, {a.repeat} runs each, alternated")
        print(f"{'':10} {'median ns':>10} {'mean ns':>10} {'spread':>7} {'slowdown':>9}"
              f" {'walked/s':>9} {'unwalked/s':>11}")
        for name in CONFIGS:
            t = times[name]
            walked = unwalked = "-"
            if offs[name]:
                secs = statistics.median(t) * a.rounds / 1e9
                o = offs[name][len(offs[name]) // 2]
                walked = f"{o['walked'] / secs:.0f}"
                unwalked = f"{(o['blocks'] - o['walked']) / secs:.0f}"
            print(f"{name:10} {statistics.median(t):10.0f} {statistics.mean(t):10.0f}"
                  f" {max(t) / min(t):7.2f} {statistics.median(t) / base:9.3f}"
                  f" {walked:>9} {unwalked:>11}")
        if a.base:
            runs = {"base": [], "this": []}
            for _ in range(a.repeat):
                runs["base"].append(sampler_ns(a.base, tmp))
                runs["this"].append(sampler_ns(a.build, tmp))
            print(f"\non-CPU sampler, chain-pie at 999 Hz, BPF ns per sample ({a.repeat} runs each)")
            for name, r in runs.items():
                print(f"{name:10} median p50 {statistics.median(x[0] for x in r):8.0f}"
                      f"  median p99 {statistics.median(x[1] for x in r):8.0f}")
            ratio = statistics.median(x[0] for x in runs["this"]) / \
                statistics.median(x[0] for x in runs["base"])
            print(f"ratio of the p50 medians, this / base: {ratio:.3f}")


if __name__ == "__main__":
    main()

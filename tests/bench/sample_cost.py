#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a sample costs the target, on average and at worst, against a baseline build.

Usage (root): tests/bench/sample_cost.py [BUILD_DIR [BASE_BUILD_DIR]]   (default: build)
Environment:  BASE_REV  the revision built as the baseline when no BASE_BUILD_DIR is
                        given (default 66c2285, a build with 16-byte rows), in a
                        temporary worktree of this repository
              REPEAT    runs of each build, alternated (default 7)
              DURATION  seconds of each run (default 3)
              FREQ      sample rate (default 999)

One chain-pie (13 frames, no frame pointers) runs for the whole benchmark; each
run is `record -F FREQ -d DURATION -p PID` of it, by three in turn, their order
rotated each round: the build (new), the build with one perf event a CPU
(new-cpus, `-C` of every CPU: what sampling the target's threads alone saves)
and the baseline (base). Measured, per run:

  mean      the kernel's run time of the builds' perf_event programs
            (kernel.bpf_stats_enabled=1, restored afterwards; run_time_ns of
            their fdinfo, read every 20 ms until the run ends) over the
            target's samples (--stats-json): every run of the sampler is paid
            for, those of other processes' samples on the CPUs included
  runs      the programs' runs per target sample: what the other processes
            on the CPUs add
  p50, p99  of the target's samples, each timed by the sampler itself
            (--stats-json bpf_ns_sample_p50/p99; "-" for a build without it)
  costs     the same samples by what they paid for (--stats-json
            bpf_sample_costs): for each cost, the share of the samples, their
            mean, and their share of the time of all

The ratios of the means are taken in each round (run i of each, one after
the other), and their medians and ranges over the rounds are printed: the
machine is shared, and a run's absolute figures vary 2-3x with its load.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
BASE = sys.argv[2] if len(sys.argv) > 2 else None
BASE_REV = os.environ.get("BASE_REV", "66c2285")
REPEAT = int(os.environ.get("REPEAT", "7"))
DURATION = os.environ.get("DURATION", "3")
FREQ = os.environ.get("FREQ", "999")
POLL = 0.02


def unwprof(build):
    return os.path.join(build, "cmd", "unwprof")


def build_base(tmp):
    """BASE_REV built in a worktree under tmp; its build directory."""
    src = os.path.join(tmp, "base")
    subprocess.run(["git", "-C", SRC, "worktree", "add", "--detach", src, BASE_REV],
                   check=True, capture_output=True)
    subprocess.run(["meson", "setup", os.path.join(src, "build"), src], check=True,
                   capture_output=True)
    subprocess.run(["ninja", "-C", os.path.join(src, "build"), "cmd/unwprof"], check=True,
                   capture_output=True)
    return os.path.join(src, "build")


def prog_runs(pid):
    """(run_time_ns, run_cnt) summed over pid's perf_event programs."""
    ns = cnt = 0
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            lines = open(f"/proc/{pid}/fdinfo/{fd}").read().splitlines()
        except OSError:
            continue
        f = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in lines)}
        if f.get("prog_type") == "7" and "link_id" not in f:
            ns += int(f.get("run_time_ns", 0))
            cnt += int(f.get("run_cnt", 0))
    return ns, cnt


def record(build, extra, target, tmp):
    """One run: {mean, runs, p50, p99, costs} of record -p target."""
    stats = os.path.join(tmp, "stats.json")
    p = subprocess.Popen([unwprof(build), "record", "--quiet", "-F", FREQ, "-d", DURATION,
                          "-p", str(target), "-o", os.devnull, "--stats-json", stats] + extra,
                         stderr=subprocess.PIPE, text=True)
    last = (0, 0)
    while p.poll() is None:
        try:
            now = prog_runs(p.pid)
            if now[1]:
                last = now
        except OSError:
            pass
        time.sleep(POLL)
    err = p.stderr.read()
    if p.returncode:
        raise SystemExit(f"sample_cost.py: {unwprof(build)} record failed:\n{err}")
    s = json.load(open(stats))
    n = s["samples"]["count"] if isinstance(s["samples"], dict) else s["samples"]
    if not n or not last[1]:
        raise SystemExit(f"sample_cost.py: {unwprof(build)}: no samples, or no run time")
    return {"mean": last[0] / n, "runs": last[1] / n, "samples": n,
            "p50": s.get("bpf_ns_sample_p50"), "p99": s.get("bpf_ns_sample_p99"),
            "costs": s.get("bpf_sample_costs"), "load": os.getloadavg()[0]}


def fmt(v, unit=""):
    return "-" if v is None else f"{v:.0f}{unit}"


def print_costs(runs):
    """Each cost's share of the samples, mean and share of the time, over all runs."""
    total = {}
    for r in runs:
        for k, c in (r["costs"] or {}).items():
            n, ns = total.get(k, (0, 0.0))
            total[k] = (n + c["samples"], ns + c["samples"] * (c["mean_ns"] or 0))
    if not total:
        return
    samples = total["none"][0] + total["any"][0]
    time_all = total["none"][1] + total["any"][1]
    print("  what the target's samples paid for (all runs; a sample may pay for several):")
    for k, (n, ns) in sorted(total.items(), key=lambda kv: -kv[1][1]):
        if n:
            print(f"    {k:15} {100 * n / samples:6.2f}% of samples, mean {ns / n:8.0f} ns, "
                  f"{100 * ns / time_all:5.1f}% of their time")


def summarize(runs):
    """Each variant's medians and ranges, and the ratios of each round."""
    for v, rs in runs.items():
        m = [r["mean"] for r in rs]
        p99 = [r["p99"] for r in rs if r["p99"] is not None]
        print(f"  {v:8}  mean per target sample: median {statistics.median(m):.0f} ns "
              f"(range {min(m):.0f}-{max(m):.0f}); runs per sample "
              f"{statistics.median(r['runs'] for r in rs):.2f}; p99 "
              + (f"median {statistics.median(p99):.0f} ns (range {min(p99):.0f}-"
                 f"{max(p99):.0f})" if p99 else "-"))
    for a, b in (("new", "base"), ("new-cpus", "base"), ("new", "new-cpus")):
        ratios = [x["mean"] / y["mean"] for x, y in zip(runs[a], runs[b])]
        print(f"  {a} / {b}, mean per target sample: median "
              f"{statistics.median(ratios):.3f} of {len(ratios)} rounds "
              f"(range {min(ratios):.3f}-{max(ratios):.3f})")


def main():
    if os.geteuid() != 0:
        raise SystemExit("sample_cost.py: needs root (BPF, perf events, sysctl)")
    chain = os.path.join(BUILD, "tests", "workloads", "chain-pie")
    with tempfile.TemporaryDirectory() as tmp:
        base = BASE or build_base(tmp)
        for b in (BUILD, base):
            if not os.access(unwprof(b), os.X_OK):
                raise SystemExit(f"sample_cost.py: {unwprof(b)} not found: build first")
        cpus = ["-C", f"0-{os.cpu_count() - 1}"]
        variants = {"new": (BUILD, []), "new-cpus": (BUILD, cpus), "base": (base, [])}
        print(f"new: {BUILD}; base: {base} ({'given' if BASE else BASE_REV}); chain-pie at "
              f"{FREQ} Hz, {DURATION} s a run, {REPEAT} runs each, {os.cpu_count()} CPUs")
        before = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
        target = subprocess.Popen([chain, "100000"])
        runs = {v: [] for v in variants}
        try:
            time.sleep(0.3)
            for i in range(REPEAT):
                order = list(variants)
                for v in order[i % 3:] + order[:i % 3]:
                    r = record(*variants[v], target.pid, tmp)
                    runs[v].append(r)
                    print(f"  {i + 1} {v:8}  mean {r['mean']:7.0f} ns, {r['runs']:.2f} runs, "
                          f"p50 {fmt(r['p50'])}, p99 {fmt(r['p99'])} ns, {r['samples']} "
                          f"samples, load {r['load']:.1f}", flush=True)
        finally:
            target.kill()
            target.wait()
            open("/proc/sys/kernel/bpf_stats_enabled", "w").write(before)
            if not BASE:
                subprocess.run(["git", "-C", SRC, "worktree", "remove", "--force",
                                os.path.join(tmp, "base")], capture_output=True)
        print()
        summarize(runs)
        print_costs(runs["new"])


if __name__ == "__main__":
    main()

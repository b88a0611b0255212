#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""record on a busy machine: the same stacks as on a quiet one, nothing lost silently.

    load.py BUILD [--repeat N] [--only NAME,...] [--meson-tests TEST,...]

Records the workloads below once on the machine as it is (quiet), then starts
stress-ng on every CPU (CPU hogs, a fork/exec storm, memory pressure and disk
I/O), records each N times more (default 3) while it runs, and stops it. For
every run it checks:

  - completeness: the share of the workload's samples whose user stack reaches
    its root (_start, the dynamic loader's start, or the start of a thread;
    samples inside an exec, [exec], have no stack to walk) is within 1 point
    of the quiet run's, or above it;
  - no sample counted as walked to the bottom lacks its root: the summary's
    walked (with the tables or with frame pointers) is at most the samples
    whose stacks in the folded output begin at a root;
  - every sample is accounted for once: walked + frame pointers + failed +
    idle + kernel threads + inside exec + lost = samples, nothing "not drained".

--meson-tests runs those tests of BUILD (meson test names) N times each while
stress-ng runs too, and reports how many passed. Exit 1 when a check or a
test fails, 77 when stress-ng is not installed (or 1 under
UNWPROF_REQUIRE_BPF=1, as for the BPF tests).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# name: (workload and its arguments, record's extra arguments, the comm whose samples count)
RECIPES = {
    "chain": (["chain-pie", "1"], [], "chain-pie"),
    "threads": (["threads", "1"], [], "threads"),
    "dlopen": (["dlopen", "1"], [], "dlopen"),
    "forker": (["forker", "100", "10"], [], "burn"),
    "all": (["chain-pie", "1"], ["-a"], "chain-pie"),
    # 5000 frames deep, deeper than a stored stack: walked by frames, never by time
    "deep": (["recurse", "1", "5000"], [], "recurse"),
}
ROOT = re.compile(r"^(?:_start|clone3|start_thread|_dl_start|_dl_start_user)(?:;|$)")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg, file=sys.stderr)


def skip(why):
    if os.environ.get("UNWPROF_REQUIRE_BPF") == "1":
        print(f"FAIL: {why} (UNWPROF_REQUIRE_BPF=1, so this is not skipped)", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


def stacks(path, comm, unrooted=None):
    """(samples of comm with user frames, those whose user stack begins at a root);
    comm None: of every process. unrooted, a dict, gets the others' stacks and counts."""
    total = rooted = 0
    with open(path, errors="replace") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if comm is not None and frames[0] != comm:
                continue
            user = [fr for fr in frames[1:] if not fr.endswith("_[k]")]
            # inside an exec the old stack is gone: [exec] is no walk at all
            if not user or user == ["[exec]"]:
                continue
            total += int(n)
            if ROOT.match(";".join(user)):
                rooted += int(n)
            elif unrooted is not None:
                unrooted[stack] = unrooted.get(stack, 0) + int(n)
    return total, rooted


def record(build, name, tmp):
    """Runs the recipe; returns its figures: completeness, walked and rooted, accounts."""
    argv, extra, comm = RECIPES[name]
    unwprof = os.path.join(build, "cmd", "unwprof")
    folded, stats = os.path.join(tmp, name + ".folded"), os.path.join(tmp, name + ".json")
    cmd = [unwprof, "record", "-F", "999", "--quiet", "-o", folded, "--stats-json", stats] + \
        extra + ["--", os.path.join(build, "tests", "workloads", argv[0])] + argv[1:]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode:
        fail(f"{name}: {' '.join(cmd)} exited {r.returncode}: {r.stderr[-400:]}")
        return None
    with open(stats) as f:
        s = json.load(f)
    unrooted = {}
    total, rooted = stacks(folded, comm, unrooted)
    o = s["outcomes"]
    return {
        "complete": 100.0 * rooted / total if total else 0.0,
        "unrooted": sorted(unrooted.items(), key=lambda e: -e[1])[:5],
        "samples": total,
        # the summary counts the samples of the whole tree that record launched
        "rooted": stacks(folded, None)[1],
        "walked": s["walked"]["count"] + s["frame_pointer_bottom"]["count"],
        "accounted": o["walked"] + o["frame_pointer"] + o["failed"] + o["idle"] +
        o["kernel_threads"] + o["exec"] + o["lost"] == s["samples"] and o["not_drained"] == 0,
        "all": extra == ["-a"],
    }


def check_run(name, got, quiet):
    if got is None:
        return
    print(f"  {name}: {got['complete']:.1f}% of {got['samples']} samples reach their root "
          f"(quiet: {quiet['complete']:.1f}%), walked {got['walked']}, rooted {got['rooted']}",
          file=sys.stderr)
    if got["complete"] < quiet["complete"] - 1:
        fail(f"{name}: {got['complete']:.1f}% complete under load, "
             f"{quiet['complete']:.1f}% quiet")
        for stack, n in got["unrooted"]:
            print(f"    {n:5d} {stack[:300]}", file=sys.stderr)
    # -a counts every process's walks; the folded output is filtered to the workload's
    if not got["all"] and got["walked"] > got["rooted"]:
        fail(f"{name}: {got['walked']} samples counted as walked, {got['rooted']} reach a root")
    if not got["accounted"]:
        fail(f"{name}: the summary's parts do not add up to its samples")


def start_load():
    cpus = os.cpu_count() or 2
    cmd = ["stress-ng", "--cpu", str(cpus), "--fork", "1", "--vm", "1", "--vm-bytes", "10%",
           "--hdd", "1", "--hdd-bytes", "64M", "--timeout", "1800s", "--quiet"]
    return subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop_load(p):
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(p.pid, signal.SIGKILL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(RECIPES))
    ap.add_argument("--meson-tests", default="")
    a = ap.parse_args()
    if os.geteuid() != 0:
        skip("needs root to record")
    if subprocess.run(["sh", "-c", "command -v stress-ng"], capture_output=True).returncode:
        skip("stress-ng is not installed (./setup.sh installs it)")
    names = [n for n in a.only.split(",") if n]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        quiet = {}
        for name in names:
            quiet[name] = record(a.build, name, tmp)
            if quiet[name]:
                print(f"quiet {name}: {quiet[name]['complete']:.1f}% complete", file=sys.stderr)
        load = start_load()
        try:
            time.sleep(2)
            for i in range(a.repeat):
                print(f"under load, run {i + 1}:", file=sys.stderr)
                for name in names:
                    if quiet[name]:
                        check_run(name, record(a.build, name, tmp), quiet[name])
            for test in [t for t in a.meson_tests.split(",") if t]:
                passed = 0
                for _ in range(a.repeat):
                    r = subprocess.run(["meson", "test", "-C", a.build, "--no-rebuild",
                                        "--print-errorlogs", test],
                                       capture_output=True, text=True,
                                       env=dict(os.environ, UNWPROF_REQUIRE_BPF="1"))
                    passed += r.returncode == 0
                    if r.returncode:  # its log, which the next run overwrites
                        print(f"{test} failed under load:\n{r.stdout[-4000:]}", file=sys.stderr)
                print(f"{test}: {passed} of {a.repeat} passed under load", file=sys.stderr)
                if passed < a.repeat:
                    fail(f"{test} failed {a.repeat - passed} of {a.repeat} times under load")
        finally:
            stop_load(load)
    print(f"{time.monotonic() - t0:.0f} s; {failures} failure(s)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

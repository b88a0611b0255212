#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of record --off-cpu against what the program measured of itself.

  offcpu.py waits FOLDED STDERR [--tolerance PCT] [--min-ms MS] [--min-chain R]
      [--threads-only]
      FOLDED: record --off-cpu --tid of tests/workloads/waits (values in
      microseconds, off-CPU stacks ending with [off-cpu]); STDERR: its lines
      "waits: NAME tid TID FUNCTION NS ns N calls R ns runnable B blocks". For each
      thread, its off-CPU time in the profile (walked or not) agrees with
      the time it measured in its waiting functions within PCT percent
      (default 2) or MS milliseconds (default 2), whichever is larger: with
      NS and a switch for each of B at most, and NS less R at least (see
      measured()); so does the time
      of the stacks through each function with that function's. Of each thread's
      walked off-CPU time, at least the share R (default 0.99) is in
      stacks that begin at the thread's root and run NAME_main;FUNCTION
      for one of its functions, and the thread that computes has no
      off-CPU time to speak of. --threads-only: the threads' times alone
      (blocks under --off-cpu-min are not walked, so not in their chains).
  offcpu.py states TRACES
      TRACES: `go tool pprof -traces -sample_index=off-cpu` of a run's
      pprof (labels "state: S", "thread: NAME"). The fsync()s of the syncer are uninterruptible (state D)
      for at least 90% of their time, the sleeper's nanosleep sleeping (S)
      for all of it.
  offcpu.py python FOLDED STDERR [--tolerance PCT] [--min-ms MS] [--min-chain R]
      FOLDED: record --off-cpu --tid of tests/e2e/pywaits.py; STDERR: its
      lines "pywaits: NAME tid TID waited NS ns". For each of its threads,
      the time off the CPU of the stacks through the Python frame of its
      waiting function (nap, take, grab) agrees with what it measured, as
      for waits, and at least the share R of the thread's walked time is in
      stacks whose Python frames run from its thread function (NAME_main).
  offcpu.py bpftrace FOLDED STDERR BPFTRACE_OUT [--tolerance PCT] [--min-ms MS]
      BPFTRACE_OUT: what tests/e2e/offcpu.bt printed while the same run of
      waits went (bcc's offcputime's method: sched_switch, frame pointers).
      Each waiting thread's time off the CPU agrees with its figure: at
      least the blocks it saw end, at most those and the ones whose end it
      did not see (@unseen), and
      the stacks it blocked in are deeper than the frame pointers of the
      workload, which has none, let bpftrace see them.
  offcpu.py accounts STATS
      record's --stats-json: every block that ended is in one place
      (walked, short, outside a call, capped, exited, lost, pending at the
      end), and the time off the CPU is positive.

Exit status: 0 when the checks hold, 1 when one does not (the evidence on
stderr), 2 on bad input.
"""
import argparse
import collections
import json
import re
import sys

THREAD_ROOT = r"(?:clone3;)?start_thread"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    return 1


def read_waits(path):
    """{thread name: (tid, {function: (ns, runnable ns, blocks)})} from the workload's own lines."""
    threads = {}
    pat = re.compile(r"^waits: (\S+) tid (\d+) (\S+) (-?\d+) ns (\d+) calls (-?\d+) ns runnable "
                     r"(\d+) blocks$")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.match(line.strip())
            if m:
                name, tid, fn = m.group(1), int(m.group(2)), m.group(3)
                ns, runnable, blocks = int(m.group(4)), max(int(m.group(6)), 0), int(m.group(7))
                threads.setdefault(name, (tid, {}))[1][fn] = (ns, runnable, blocks)
    return threads


# The time of a context switch that both the thread's CPU time and its time
# off the CPU count: the kernel counts a thread's CPU time from the start of
# the switch that runs it again, and the sched_switch tracepoint, where the
# block ends, fires later in it, after the programs attached before
# unwprof's. In a sanitized build's run on a loaded machine the fsync
# thread's time off the CPU was 30 ms over its own measure in 13,400 blocks
# (2.2 us each), and within 0.1% of bpftrace's.
SWITCH_NS = 4000


def measured(fns):
    """
    The least and the most time off the CPU the workload's measures allow:
    its waits' time less the thread's CPU time counts the time the thread
    was runnable but waited for a CPU, which the kernel's scheduler
    statistics give (runnable). Of it, the wait after a wakeup is off-CPU
    time, as a profiler counts it (from leaving the CPU blocked to running
    again), and the wait after a preemption is not. The syncer's fsync()s,
    CPU work in the kernel that is preempted, spread the two by 9-13% on a
    quiet machine and by up to half under load (the other threads' by up
    to 3% and 30%); bpftrace's figure of the same run is the tight check.
    Each block may add a switch's time (SWITCH_NS) to the most.
    """
    least = sum(ns - r for ns, r, _ in fns.values())
    return least, sum(ns + b * SWITCH_NS for ns, _, b in fns.values())


def read_off_cpu(path):
    """[(tid, frames, microseconds, walked)] of the off-CPU lines of a --tid profile."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            stack, _, value = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if not frames or frames[-1] != "[off-cpu]":
                continue
            m = re.match(r"^.*-\d+/(\d+)(?: \(.*\))?$", frames[0])
            if not m:
                raise ValueError(f"{path}: no TID in the first frame of {stack[:80]}")
            user = [fr for fr in frames[1:-1] if not fr.endswith("_[k]")]
            out.append((int(m.group(1)), user, int(value), "[unwalked]" not in user))
    return out


def within(got_us, want_ns, pct, min_ms):
    return within_range(got_us, want_ns, want_ns, pct, min_ms)


def within_range(got_us, least_ns, most_ns, pct, min_ms):
    """Whether got_us is between the two, give or take pct percent or min_ms ms."""
    margin_us = max(most_ns / 1000 * pct / 100, min_ms * 1000)
    return least_ns / 1000 - margin_us <= got_us <= most_ns / 1000 + margin_us


def ms_range(least_ns, most_ns):
    if most_ns - least_ns < 50000:
        return f"{most_ns / 1e6:.1f} ms"
    return f"{least_ns / 1e6:.1f}-{most_ns / 1e6:.1f} ms"


def cmd_waits(args):
    threads = read_waits(args.stderr)
    lines = read_off_cpu(args.folded)
    if len(threads) < 7:
        return fail(f"the workload reported {len(threads)} threads, not 7: {args.stderr}")
    fails = 0
    for name, (tid, fns) in sorted(threads.items()):
        mine = [ln for ln in lines if ln[0] == tid]
        total = sum(v for _, _, v, _ in mine)
        if name == "compute":
            if total > 2000 * args.min_ms:
                fails += fail(f"compute: {total} us off the CPU, it never waits")
            continue
        least, most = measured(fns)
        ok = within_range(total, least, most, args.tolerance, args.min_ms)
        print(f"{name}: off-CPU {total / 1000:.1f} ms, measured {ms_range(least, most)}"
              f"{'' if ok else '  <- differs'}", file=sys.stderr)
        fails += 0 if ok else 1
        if args.threads_only:
            continue
        for fn, counts in sorted(fns.items()):
            fn_least, fn_most = measured({fn: counts})
            through = sum(v for _, user, v, _ in mine if fn in user)
            ok = within_range(through, fn_least, fn_most, args.tolerance, args.min_ms)
            print(f"  {fn}: {through / 1000:.1f} ms, measured {ms_range(fn_least, fn_most)}"
                  f"{'' if ok else '  <- differs'}", file=sys.stderr)
            fails += 0 if ok else 1
        chain = re.compile(rf"^{THREAD_ROOT};{name}_main;(?:{'|'.join(map(re.escape, fns))})(;|$)")
        walked = [(user, v) for _, user, v, w in mine if w]
        whole = sum(v for user, v in walked if chain.search(";".join(user)))
        all_walked = sum(v for _, v in walked)
        if not all_walked or whole < args.min_chain * all_walked:
            fails += fail(f"{name}: {whole} of {all_walked} us of walked stacks run from the "
                          f"thread's root through {name}_main to its waiting functions")
            for user, v in sorted(walked, key=lambda w: -w[1])[:5]:
                print(f"    {v} us: {';'.join(user)[:200]}", file=sys.stderr)
    return 1 if fails else 0


PYTHON_FRAME = re.compile(r"^(\S+) \((.*):(\d+)\)$")
PY_WAITS = {"sleeper": "nap", "getter": "take", "locker": "grab"}


def cmd_python(args):
    lines = read_off_cpu(args.folded)
    waited = {}
    pat = re.compile(r"^pywaits: (\S+) tid (\d+) waited (-?\d+) ns$")
    with open(args.stderr, errors="replace") as f:
        for line in f:
            m = pat.match(line.strip())
            if m:
                waited[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if set(waited) != set(PY_WAITS):
        return fail(f"pywaits.py reported {sorted(waited)}, not {sorted(PY_WAITS)}")
    fails = 0
    for name, (tid, ns) in sorted(waited.items()):
        mine = [ln for ln in lines if ln[0] == tid]
        pynames = [([PYTHON_FRAME.match(fr).group(1) for fr in user if PYTHON_FRAME.match(fr)],
                    v, w) for _, user, v, w in mine]
        through = sum(v for names, v, _ in pynames if PY_WAITS[name] in names)
        ok = within(through, ns, args.tolerance, args.min_ms)
        print(f"{name}: {PY_WAITS[name]} {through / 1000:.1f} ms off the CPU, measured "
              f"{ns / 1e6:.1f} ms{'' if ok else '  <- differs'}", file=sys.stderr)
        fails += 0 if ok else 1
        walked = sum(v for _, v, w in pynames if w)
        framed = sum(v for names, v, w in pynames if w and f"{name}_main" in names)
        if not walked or framed < args.min_chain * walked:
            fails += fail(f"{name}: {framed} of {walked} us walked have the Python frame "
                          f"{name}_main")
    return 1 if fails else 0


def read_bpftrace(path):
    """@off[TID]: NS, @unseen[TID]: NS and the depths of the @stacks[TID, ustack] keys."""
    off, unseen, depths = {}, {}, collections.defaultdict(list)
    with open(path, errors="replace") as f:
        text = f.read()
    for name, into in (("off", off), ("unseen", unseen)):
        for m in re.finditer(rf"^@{name}\[(\d+)\]: (\d+)$", text, re.M):
            into[int(m.group(1))] = int(m.group(2))
    for m in re.finditer(r"^@stacks\[(\d+), \n(.*?)\]: \d+$", text, re.M | re.S):
        depths[int(m.group(1))].append(len([ln for ln in m.group(2).splitlines() if ln.strip()]))
    return off, unseen, depths


def cmd_bpftrace(args):
    threads = read_waits(args.stderr)
    lines = read_off_cpu(args.folded)
    off, unseen, depths = read_bpftrace(args.bpftrace)
    fails = 0
    for name, (tid, _) in sorted(threads.items()):
        if name == "compute":
            continue
        ours = sum(v for t, _, v, _ in lines if t == tid)
        least = off.get(tid, 0)
        most = least + unseen.get(tid, 0)
        ok = within_range(ours, least, most, args.tolerance, args.min_ms)
        deep_ours = max((len(user) for t, user, _, w in lines if t == tid and w), default=0)
        deep_theirs = max(depths.get(tid, [0]))
        print(f"{name}: {ours / 1000:.1f} ms off the CPU, bpftrace {ms_range(least, most)}"
              f"{'' if ok else '  <- differs'}; deepest stack {deep_ours} frames, "
              f"bpftrace's {deep_theirs}", file=sys.stderr)
        fails += 0 if ok else 1
        if deep_ours <= deep_theirs:
            fails += fail(f"{name}: stacks no deeper than frame pointers give")
    return 1 if fails else 0


def cmd_states(args):
    """go tool pprof -traces: samples separated by dashes, labels, then the value and frames."""
    with open(args.traces, errors="replace") as f:
        text = f.read()
    by = collections.Counter()
    for block in text.split("-----------+-------------------------------------------------------"):
        state = re.search(r"state:\s+(\w)$", block, re.M)
        thread = re.search(r"thread:\s+(\w+)$", block, re.M)
        value = re.search(r"^\s+(\d+(?:\.\d+)?)(ns|us|µs|ms|s)\s", block, re.M)
        if not (state and thread and value):
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1, "s": 1e3}[value.group(2)]
        by[(thread.group(1), state.group(1))] += float(value.group(1)) * scale
    fails = 0
    sync_d, sync_all = by[("syncer", "D")], by[("syncer", "D")] + by[("syncer", "S")]
    print(f"syncer: {sync_d:.1f} of {sync_all:.1f} ms in D; sleeper: "
          f"{by[('sleeper', 'S')]:.1f} ms in S, {by[('sleeper', 'D')]:.1f} in D", file=sys.stderr)
    if not sync_all or sync_d < 0.9 * sync_all:
        fails += fail("the syncer's fsync()s are not uninterruptible (D)")
    if not by[("sleeper", "S")] or by[("sleeper", "D")]:
        fails += fail("the sleeper's nanosleep is not all sleeping (S)")
    return 1 if fails else 0


def cmd_accounts(args):
    with open(args.stats) as f:
        o = json.load(f)["off_cpu"]
    parts = ["walked", "short", "outside_syscall", "capped", "exited", "lost", "pending_at_end"]
    total = sum(o[k] for k in parts)
    print(f"off-CPU blocks {o['blocks']} = " + " + ".join(f"{k} {o[k]}" for k in parts),
          file=sys.stderr)
    if total != o["blocks"] or not o["blocks"]:
        return fail("the blocks do not add up")
    if o["walked_ns"] + o["unwalked_ns"] <= 0:
        return fail("no time off the CPU")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("waits")
    s.add_argument("folded")
    s.add_argument("stderr")
    s.add_argument("--tolerance", type=float, default=2.0)
    s.add_argument("--min-ms", type=float, default=2.0)
    s.add_argument("--min-chain", type=float, default=0.99)
    s.add_argument("--threads-only", action="store_true")
    s.set_defaults(fn=cmd_waits)
    s = sub.add_parser("python")
    s.add_argument("folded")
    s.add_argument("stderr")
    s.add_argument("--tolerance", type=float, default=2.0)
    s.add_argument("--min-ms", type=float, default=2.0)
    s.add_argument("--min-chain", type=float, default=0.99)
    s.set_defaults(fn=cmd_python)
    s = sub.add_parser("bpftrace")
    s.add_argument("folded")
    s.add_argument("stderr")
    s.add_argument("bpftrace")
    s.add_argument("--tolerance", type=float, default=2.0)
    s.add_argument("--min-ms", type=float, default=2.0)
    s.set_defaults(fn=cmd_bpftrace)
    s = sub.add_parser("states")
    s.add_argument("traces")
    s.set_defaults(fn=cmd_states)
    s = sub.add_parser("accounts")
    s.add_argument("stats")
    s.set_defaults(fn=cmd_accounts)
    args = p.parse_args()
    try:
        return args.fn(args)
    except (OSError, ValueError, KeyError) as e:
        print(f"offcpu.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

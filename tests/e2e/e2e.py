#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of the end-to-end tests on the output of `unwprof record`.

Folded stacks: one line per stack, "comm;root;...;leaf COUNT", where the
first frame is comm, comm-PID (--pid) or comm-PID/TID (--tid), user frames
go root to leaf and kernel frames (suffix _[k]) follow them.

  e2e.py stacks FOLDED --comm NAME [--leaf FRAME] --expect REGEX
     [--min-ratio R | --max-ratio R] [--min-samples N] [--tid TID] [--never REGEX]
      Among the samples of NAME whose user leaf is FRAME (all of NAME's samples
      without --leaf), the share whose user frames, joined with ';', fully
      match REGEX must be at least (at most) R. REGEX may use {START}, the
      frames glibc puts below main, and {THREAD}, the frames below a
      thread's start routine. --tid: every such sample must come from thread
      TID. --never: no sample of NAME may match REGEX anywhere.
  e2e.py deep FOLDED --comm NAME --leaf FRAME --frame FRAME --min-frames N
      Samples of a recursion deeper than the frame limit: at least 99% of
      them keep the N frames nearest the leaf (leaf, then FRAME repeated).
  e2e.py summary STDERR FIELD [--min N]
      The integer after FIELD in record's summary; at least N (default 1).
  e2e.py comms FOLDED --min N
      At least N distinct process names in the profile.
  e2e.py run --out FILE --err FILE --rc FILE [--timeout S] -- COMMAND...
      Runs COMMAND (stdout, stderr and exit status to the files), killing it
      after S seconds (default 60). While it runs, notes every BPF program,
      map and link it holds (/proc/PID/fdinfo); fails if any of them is
      still loaded 3 s after it exited (`bpftool prog/map/link show`).
  e2e.py bpf-probe
      Exit 0 if a BPF program loads and a cpu-clock perf event opens here,
      else prints why and exits 1.

Exit status: 0 when the check holds, 1 when it does not (with the evidence on
stderr), 2 on bad input.
"""
import argparse
import collections
import ctypes
import json
import os
import re
import subprocess
import sys
import time

LIBC_UNKNOWN = r"\[libc\.so\.6\+0x[0-9a-f]+\]"
# glibc 2.36: _start calls __libc_start_main (__libc_start_main_impl in the
# sources, with aliases in the symbol table), which calls
# __libc_start_call_main, which calls main. Without libc's debug symbols the
# static function is only known by its offset.
START = (r"_start;__libc_start_main(?:_impl|_alias_[12])?(?:@@?GLIBC_[0-9.]+)?;"
         r"(?:__libc_start_call_main|" + LIBC_UNKNOWN + ")")
# glibc 2.36: clone3 runs start_thread, which calls the thread's routine.
# Neither is exported: without libc's debug symbols both are offsets.
THREAD = r"(?:__clone3|clone3|" + LIBC_UNKNOWN + ");(?:start_thread|" + LIBC_UNKNOWN + ")"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


class Sample:
    def __init__(self, line, lineno, path):
        try:
            stack, count = line.rsplit(" ", 1)
            self.count = int(count)
        except ValueError:
            print(f"{path}:{lineno}: not a folded stack: {line!r}", file=sys.stderr)
            sys.exit(2)
        frames = stack.split(";")
        self.comm, self.pid, self.tid = self.parse_head(frames[0])
        self.kernel = [f for f in frames[1:] if f.endswith("_[k]")]
        self.user = [f for f in frames[1:] if not f.endswith("_[k]")]
        self.line = line

    @staticmethod
    def parse_head(head):
        m = re.fullmatch(r"(.*)-(\d+)/(\d+)", head)
        if m:
            return m.group(1), int(m.group(2)), int(m.group(3))
        m = re.fullmatch(r"(.*)-(\d+)", head)
        if m:
            return m.group(1), int(m.group(2)), None
        return head, None, None

    def leaf(self):
        return self.user[-1] if self.user else None


def read_folded(path):
    samples = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line:
                samples.append(Sample(line, n, path))
    return samples


def comm_matches(sample, comm):
    # comm is truncated to 15 characters by the kernel.
    return sample.comm == comm[:15]


def show(samples, title, limit=8):
    print(title, file=sys.stderr)
    for s in sorted(samples, key=lambda s: -s.count)[:limit]:
        print(f"  {s.count:6d} {s.line[:400]}", file=sys.stderr)


def expand(regex):
    return regex.replace("{START}", START).replace("{THREAD}", THREAD)


def cmd_stacks(args):
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    if args.never:
        never = re.compile(expand(args.never))
        bad = [s for s in samples if never.search(";".join(s.user))]
        if bad:
            show(bad, f"stacks of {args.comm} that must never occur ({args.never}):")
            fail(f"{sum(s.count for s in bad)} samples of {args.comm} match {args.never}")
    if args.leaf:
        samples = [s for s in samples if s.leaf() == args.leaf]
    total = sum(s.count for s in samples)
    what = f"samples of {args.comm}" + (f" with leaf {args.leaf}" if args.leaf else "")
    if total < args.min_samples:
        fail(f"{total} {what}, expected at least {args.min_samples}")
    if args.tid is not None:
        other = [s for s in samples if s.tid != args.tid]
        if other:
            show(other, f"{what} not from thread {args.tid}:")
            fail(f"{sum(s.count for s in other)} {what} not attributed to thread {args.tid}")
    expect = re.compile(expand(args.expect))
    good = [s for s in samples if expect.fullmatch(";".join(s.user))]
    ratio = sum(s.count for s in good) / total
    print(f"{what}: {total}, matching: {ratio:.2%}", file=sys.stderr)
    if args.min_ratio is not None and ratio < args.min_ratio:
        show([s for s in samples if s not in good], "stacks that do not match:")
        fail(f"{ratio:.2%} of {what} match {args.expect}, expected at least "
                f"{args.min_ratio:.0%}")
    if args.max_ratio is not None and ratio > args.max_ratio:
        show(good, "stacks that match:")
        fail(f"{ratio:.2%} of {what} match {args.expect}, expected at most "
                f"{args.max_ratio:.0%}")


def cmd_deep(args):
    samples = [s for s in read_folded(args.folded)
               if comm_matches(s, args.comm) and s.leaf() == args.leaf]
    total = sum(s.count for s in samples)
    if total < args.min_samples:
        fail(f"{total} samples of {args.comm} with leaf {args.leaf}, "
                f"expected at least {args.min_samples}")
    want = [args.frame] * (args.min_frames - 1) + [args.leaf]
    good = [s for s in samples if s.user[-args.min_frames:] == want]
    ratio = sum(s.count for s in good) / total
    depth = collections.Counter()
    for s in samples:
        depth[len(s.user)] += s.count
    print(f"samples with leaf {args.leaf}: {total}, user frames kept: {dict(depth)}, "
              f"with the {args.min_frames} leaf frames: {ratio:.2%}", file=sys.stderr)
    if ratio < 0.99:
        show([s for s in samples if s not in good], "stacks that lost leaf frames:", 4)
        fail(f"only {ratio:.2%} of the deep samples keep {args.min_frames} leaf frames")


def cmd_summary(args):
    with open(args.stderr) as f:
        text = f.read()
    m = re.search(re.escape(args.field) + r"\D*?(\d+)", text, re.IGNORECASE)
    if not m:
        print(text, file=sys.stderr)
        fail(f"no '{args.field}' with a number in record's summary")
    value = int(m.group(1))
    print(f"summary {args.field}: {value}", file=sys.stderr)
    if value < args.min:
        print(text, file=sys.stderr)
        fail(f"summary {args.field} is {value}, expected at least {args.min}")


def cmd_comms(args):
    comms = collections.Counter()
    for s in read_folded(args.folded):
        comms[s.comm] += s.count
    print(f"{len(comms)} processes, top: {comms.most_common(6)}", file=sys.stderr)
    if len(comms) < args.min:
        fail(f"{len(comms)} distinct processes in the profile, expected at least {args.min}")


def held_bpf_objects(pid, seen):
    """Adds to seen the (kind, id) of every BPF program, map and link pid holds."""
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return
    for fd in fds:
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key in ("prog_id", "map_id", "link_id"):
                        # a link's fdinfo names its program too: the link is what it holds
                        seen.add((key[:-3], int(value)))
                        if key == "link_id":
                            break
        except OSError:
            pass


def bpf_ids(kind):
    out = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True)
    if out.returncode:
        fail(f"bpftool {kind} show: " + out.stderr.strip())
    return {o["id"] for o in json.loads(out.stdout or "[]")}


def still_loaded(held):
    now = {kind: bpf_ids(kind) for kind in ("prog", "map", "link")}
    return sorted((kind, i) for kind, i in held if i in now[kind])


def cmd_run(args):
    """Runs the command, follows the BPF objects it holds, checks they go with it."""
    held = set()
    with open(args.out, "w") as out, open(args.err, "w") as err:
        proc = subprocess.Popen(args.command, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    deadline = time.monotonic() + args.timeout
    while proc.poll() is None:
        held_bpf_objects(proc.pid, held)
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            fail(f"{' '.join(args.command)} did not finish in {args.timeout} s")
        time.sleep(0.02)
    with open(args.rc, "w") as f:
        print(proc.returncode, file=f)
    # The kernel frees programs and maps after an RCU grace period: give it time.
    deadline = time.monotonic() + 3
    while True:
        left = still_loaded(held)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if left:
        fail("BPF objects of unwprof left after it exited: "
             + ", ".join(f"{kind} {i}" for kind, i in left))
    if held:
        print(f"({len(held)} BPF programs, maps and links, all released)", file=sys.stderr)


def cmd_bpf_probe(args):
    """Loads "r0 = 0; exit" as a socket filter, then opens a cpu-clock perf event."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    insns = (ctypes.c_uint64 * 2)(0xb7, 0x95)  # BPF_MOV64_IMM(r0, 0); BPF_EXIT
    lic = ctypes.create_string_buffer(b"GPL")

    class Attr(ctypes.Structure):
        _fields_ = [("prog_type", ctypes.c_uint32), ("insn_cnt", ctypes.c_uint32),
                    ("insns", ctypes.c_uint64), ("license", ctypes.c_uint64),
                    ("pad", ctypes.c_uint8 * 112)]

    attr = Attr(1, 2, ctypes.addressof(insns), ctypes.addressof(lic))
    fd = libc.syscall(321, 5, ctypes.byref(attr), ctypes.sizeof(attr))  # bpf(PROG_LOAD)
    if fd < 0:
        print("cannot load a BPF program: " + os.strerror(ctypes.get_errno()))
        sys.exit(1)
    os.close(fd)

    # perf_event_attr (first 64 bytes): PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, disabled
    perf_attr = (ctypes.c_uint32 * 16)(1, 64, 0, 0, 0, 0, 0, 0, 0, 0, 1)
    fd = libc.syscall(298, ctypes.byref(perf_attr), 0, -1, -1, 0)  # perf_event_open
    if fd < 0:
        print("cannot open a cpu-clock perf event: " + os.strerror(ctypes.get_errno()))
        sys.exit(1)
    os.close(fd)


def main():
    p = argparse.ArgumentParser(description="checks of the end-to-end tests")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stacks")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--leaf")
    s.add_argument("--expect", required=True)
    s.add_argument("--min-ratio", type=float)
    s.add_argument("--max-ratio", type=float)
    s.add_argument("--min-samples", type=int, default=100)
    s.add_argument("--tid", type=int)
    s.add_argument("--never")
    s.set_defaults(fn=cmd_stacks)
    s = sub.add_parser("deep")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--leaf", required=True)
    s.add_argument("--frame", required=True)
    s.add_argument("--min-frames", type=int, required=True)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_deep)
    s = sub.add_parser("summary")
    s.add_argument("stderr")
    s.add_argument("field")
    s.add_argument("--min", type=int, default=1)
    s.set_defaults(fn=cmd_summary)
    s = sub.add_parser("comms")
    s.add_argument("folded")
    s.add_argument("--min", type=int, required=True)
    s.set_defaults(fn=cmd_comms)
    s = sub.add_parser("run")
    s.add_argument("--out", required=True)
    s.add_argument("--err", required=True)
    s.add_argument("--rc", required=True)
    s.add_argument("--timeout", type=float, default=60)
    s.add_argument("command", nargs="+")
    s.set_defaults(fn=cmd_run)
    sub.add_parser("bpf-probe").set_defaults(fn=cmd_bpf_probe)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()

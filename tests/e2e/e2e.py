#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of the end-to-end tests on the output of `unwprof record`.

Folded stacks: one line per stack, "comm;root;...;leaf COUNT", where the
first frame is comm, comm-PID (--pid) or comm-PID/TID (--tid, then " (THREAD)"
when the thread has a name of its own), user frames go root to leaf and kernel
frames (suffix _[k]) follow them. Functions the compiler inlined into their
caller (suffix _[i], after the caller) are left out by every check, which then
sees the stacks a frame walk gives (as perf without --inline shows them),
except by stacks --inlined.

  e2e.py stacks FOLDED --comm NAME [--leaf FRAME] [--through FRAME] --expect REGEX
     [--min-ratio R | --max-ratio R] [--min-samples N] [--tid TID] [--never REGEX]
     [--inlined]
      Among the samples of NAME whose user leaf is FRAME (all of NAME's samples
      without --leaf), and with the frame of --through among their user frames
      when it is given, the share whose user frames, joined with ';', fully
      match REGEX must be at least (at most) R. REGEX may use {START}, the
      frames glibc puts below main, and {THREAD}, the frames below a
      thread's start routine. --tid: every such sample must come from thread
      TID. --never: no sample of NAME may match REGEX anywhere. --inlined:
      the inlined frames (_[i]) are kept.
  e2e.py deep FOLDED --comm NAME --leaf FRAME --frame FRAME --min-frames N
      Samples of a recursion deeper than the walk goes (in tail calls): at
      least 99% of them keep the N frames nearest the leaf (leaf, then FRAME
      repeated).
  e2e.py elided FOLDED --comm NAME --leaf FRAME --frame FRAME --frames N
     [--root REGEX] [--min-samples N]
      Samples of a recursion deeper than a stored stack, N frames FRAME
      between the root's frames and the leaf: at least 99% of those with
      leaf FRAME are ROOT (default {START};main), FRAME repeated, one frame
      "[... K frames ...]", FRAME repeated, the leaf, where K and the
      FRAMEs shown are exactly N: the frames left out are counted exactly.
  e2e.py budget JSON FOLDED --comm NAME --frames N --budget B
     [--frame FRAME] [--leaf FRAME] [--root REGEX]
      A recursion deeper than a CPU's budget of frames (--stats-json JSON),
      B frames a sample: the share of the samples with a user stack cut by
      the budget (frame-budget-spent) within 0.25 of what the budget makes
      of the rate the target was sampled at (none when the machine gave it
      too little of a CPU for its walks to spend the budget), every truncated
      one of them cut; 70% of the rest walked whole at full depth (the
      recursion of N FRAME, default descend, to the leaf, default bottom,
      its middle elided); no
      sample counted as walked to the bottom that does not begin at a root.
  e2e.py exec FOLDED --comm NAME --old NAME [--min-samples N]
      Samples inside execve past its point of no return: those whose kernel
      stack frees the old program's memory (__mmput or exit_mmap under
      begin_new_exec), at least N (default 20), are 99% the one user frame
      [exec], under the new program's name: the exec from --old, which has
      more memory to free, into NAME gives NAME 3 times as many; and
      every sample with that frame and a kernel stack is in an execve system
      call, or on its way back to user space.
  e2e.py summary STDERR FIELD [--min N] [--max M]
      The integer after FIELD in record's summary; at least N (default 1)
      and at most M.
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
  e2e.py stats JSON [--min-walked R] [--min-bottom R] [--min-samples N]
      Record's --stats-json summary: at least N samples with a user stack
      (default 100), of which at least the share R (default 0) were walked to the bottom with
      the tables alone (--min-walked), or reached it with the tables or
      frame pointers (--min-bottom).
  e2e.py roots FOLDED [--comm NAME] [--root REGEX]... --min-ratio R
      Among the samples (of NAME) with user frames, the share whose user
      stack begins at a root of the process must be at least R: a frame
      named _start (the executable's or ld.so's), any frame below glibc's
      __libc_start_main (a stripped executable's _start) or {THREAD}; --root
      replaces these with REGEX, matched against the first frames.
  e2e.py jit-named FOLDED MAP --comm NAME --min-ratio R [--min-samples N]
      [--expect-leaf NAME]
      JIT code named from MAP, the perf map the runtime wrote: among the
      samples of NAME whose user leaf is in JIT code (a frame MAP names, or
      [anon+0x...], anonymous memory without a name), the share named must
      be at least R, with at least N such samples; with --expect-leaf, NAME
      (the map's text, whole) is the most frequent leaf among them.
  e2e.py jit-unnamed FOLDED MAP --comm NAME --max-ratio R [--min-named N]
      Of the samples of NAME's main thread (its tid is its pid: --tid
      folded), at most R have a JIT frame left unnamed ([anon+0x...]) among
      their user frames, and at least N (default 100) have a frame named from
      MAP, the runtime's perf map.
  e2e.py fde-starts FOLDED ELF --comm NAME [--min-ratio R] [--min-frames N]
      Frames of a file without symbols named by the function that holds
      them: among the user frames of NAME's samples that are
      [BASENAME+0xOFFSET] with ELF's base name, the share (by samples) whose
      OFFSET is the file offset of the start of an FDE of ELF's .eh_frame, as
      `readelf --debug-dump=frames` lists them, must be at least R (default
      0.99), with at least N such frames (default 100); and _start, where a
      stack has it, is at ELF's entry point (`readelf -h`), which no symbol
      of ELF names.
  e2e.py perf FOLDED [--freq HZ] [--timeout S] -- COMMAND...
      Records COMMAND with `perf record -e cpu-clock -F HZ --call-graph dwarf`
      (default 999 Hz, perf's default 8 KiB stack copy; without ASLR, see
      cmd_perf) and writes its stacks to FOLDED in record's folded format; a
      frame without a symbol is named as record names it: by the function
      that holds it, from readelf's list of FDEs of its file ([FILE+0xSTART],
      the file offset of its start, or _start at the entry point), else
      [FILE+0xOFFSET] (a caller's offset is its return address). COMMAND's output and perf's
      messages go to FOLDED.log; the other names (aliases, from the files'
      symbol tables) of the functions perf named go to FOLDED.aliases.
  e2e.py compare FOLDED REFERENCE [--comm NAME] [--depth K] [--min-share S] [--min-other O]
      Frames near the leaf agree with a reference profile of the same command
      (perf's): every frame found among the K user frames nearest the leaf
      (default 1: self time) of at least the share S (default 0.02) of one
      profile's samples is found there in at least O (default S/2) of the other's. A frame
      is its process name and function, or, without a symbol, the function's
      start [FILE+0xSTART] (the call site [FILE+0xRETURN] where no FDE holds
      it; the leaf: [FILE]); symbol versions (@GLIBC_2.2.5),
      Rust hashes and C++ parameter lists are left out, and the names of one
      function (memcpy, memmove) are one, from REFERENCE.aliases (written by
      e2e.py perf).
  e2e.py addr2line PPROF FILE ELF [--min-leaves N]
      The leaves of PPROF's samples in the mapping of FILE (a path) are named
      as `addr2line -f -i -e ELF` names their address: the same functions,
      inlined ones innermost first, at the same lines, for every such leaf
      location, at least N of them (default 3). ELF is the file unstripped,
      whose DWARF is the reference. Reads PPROF through `go tool pprof -raw`.
  e2e.py go-symbols FOLDED ELF FUNCS OUT
      Names the [FILE+0xOFFSET] frames of a Go executable ELF (FILE is its
      basename) from FUNCS, lines "START END NAME" (hex addresses, as
      tests/programs/gofuncs.go prints them from ELF's pclntab), writing
      the profile to OUT.

Exit status: 0 when the check holds, 1 when it does not (with the evidence on
stderr), 2 on bad input.
"""
import argparse
import ast
import bisect
import collections
import ctypes
import json
import os
import re
import struct
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


# An interpreter's frame: NAME (FILE:LINE), or NAME (FILE) when its line is not known.
PYTHON_FRAME = re.compile(r"(.+) \(([^;()]*?)(?::(\d+))?\)")


class Sample:
    def __init__(self, line, lineno, path, inlined=False):
        try:
            stack, count = line.rsplit(" ", 1)
            self.count = int(count)
        except ValueError:
            print(f"{path}:{lineno}: not a folded stack: {line!r}", file=sys.stderr)
            sys.exit(2)
        frames = stack.split(";")
        self.comm, self.pid, self.tid = self.parse_head(frames[0])
        self.kernel = [f for f in frames[1:] if f.endswith("_[k]")]
        # Interpreted frames, "QUALNAME (FILE:LINE)", are apart: checks against native
        # references (perf, the chains of native programs) see the native frames.
        self.python = [f for f in frames[1:] if PYTHON_FRAME.fullmatch(f)]
        self.user = [f for f in frames[1:]
                     if not f.endswith("_[k]") and (inlined or not f.endswith("_[i]"))
                     and not PYTHON_FRAME.fullmatch(f)]
        self.frames = frames[1:]
        self.line = line

    @staticmethod
    def parse_head(head):
        # "comm-PID/TID (THREAD)": the thread's own name, when it has one
        m = re.fullmatch(r"(.*?)-(\d+)/(\d+)(?: \((.*)\))?", head)
        if m:
            return m.group(1), int(m.group(2)), int(m.group(3))
        m = re.fullmatch(r"(.*)-(\d+)", head)
        if m:
            return m.group(1), int(m.group(2)), None
        return head, None, None

    def leaf(self):
        return self.user[-1] if self.user else None


def read_folded(path, inlined=False):
    samples = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line:
                samples.append(Sample(line, n, path, inlined))
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
    samples = [s for s in read_folded(args.folded, args.inlined) if comm_matches(s, args.comm)]
    if args.never:
        never = re.compile(expand(args.never))
        bad = [s for s in samples if never.search(";".join(s.user))]
        if bad:
            show(bad, f"stacks of {args.comm} that must never occur ({args.never}):")
            fail(f"{sum(s.count for s in bad)} samples of {args.comm} match {args.never}")
    if args.leaf:
        samples = [s for s in samples if s.leaf() == args.leaf]
    if args.through:
        through = re.compile(expand(args.through))
        samples = [s for s in samples if any(through.fullmatch(f) for f in s.user)]
    total = sum(s.count for s in samples)
    what = f"samples of {args.comm}" + (f" with leaf {args.leaf}" if args.leaf else "") + \
        (f" through {args.through}" if args.through else "")
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


ELIDED = re.compile(r"\[\.\.\. ([0-9,]+) frames? \.\.\.\]")


def cmd_elided(args):
    samples = [s for s in read_folded(args.folded)
               if comm_matches(s, args.comm) and s.leaf() == args.leaf]
    total = sum(s.count for s in samples)
    if total < args.min_samples:
        fail(f"{total} samples of {args.comm} with leaf {args.leaf}, "
             f"expected at least {args.min_samples}")
    want = re.compile(expand(args.root) + ";" + re.escape(args.frame + ";") * args.frames +
                      re.escape(args.leaf))
    good, left_out = [], collections.Counter()
    for s in samples:
        marks = [i for i, f in enumerate(s.user) if ELIDED.fullmatch(f)]
        if len(marks) != 1:
            continue
        i = marks[0]
        k = int(ELIDED.fullmatch(s.user[i]).group(1).replace(",", ""))
        left_out[k] += s.count
        # The frames left out are FRAMEs: put back, they must give the whole recursion.
        if want.fullmatch(";".join(s.user[:i] + [args.frame] * k + s.user[i + 1:])):
            good.append(s)
    ratio = sum(s.count for s in good) / total
    print(f"samples with leaf {args.leaf}: {total}, frames left out: {dict(left_out)}, "
          f"the whole recursion of {args.frames} {args.frame}: {ratio:.2%}", file=sys.stderr)
    if ratio < 0.99:
        show([s for s in samples if s not in good], "stacks that are not the whole recursion:", 4)
        fail(f"only {ratio:.2%} of the deep samples are the recursion with the frames "
             f"left out counted")


def cmd_budget(args):
    """Samples deeper than a CPU's budget of frames: some walked whole, the others cut at
    their 1024th frame, as many as the budget makes of the rate the target was sampled
    at; every truncated sample cut; every sample counted as walked reached its root."""
    with open(args.json) as f:
        stats = json.load(f)
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    user = stats["user_samples"]
    cut = stats["errors"].get("frame-budget-spent", 0)
    truncated = stats["truncated"]["count"]
    want = re.compile(expand(args.root) + ";" + re.escape(args.frame + ";") * args.frames +
                      re.escape(args.leaf))
    whole = 0
    for s in samples:
        marks = [i for i, f in enumerate(s.user) if ELIDED.fullmatch(f)]
        if len(marks) != 1:
            continue
        i = marks[0]
        k = int(ELIDED.fullmatch(s.user[i]).group(1).replace(",", ""))
        if want.fullmatch(";".join(s.user[:i] + [args.frame] * k + s.user[i + 1:])):
            whole += s.count
    if not user:
        fail("no sample with a user stack")
    # A CPU walks B frames a sample period; the target, sampled `rate` times a second of
    # its period's, takes D frames a whole walk and 1024 a cut one: whole x of them with
    # x D + (1 - x) 1024 = B / rate.
    rate = user / stats["duration_s"] / stats["frequency_hz"]
    deep = args.frames + 4
    x = min(1.0, max(0.0, (args.budget / rate - 1024) / (deep - 1024))) if rate else 1.0
    print(f"{user} samples with a user stack ({rate:.0%} of a CPU's periods): {whole} walked "
          f"whole at full depth, {cut} cut by the budget (expected {1 - x:.0%}), {truncated} "
          f"truncated, {stats['walked']['count']} counted walked", file=sys.stderr)
    if abs(cut / user - (1 - x)) > 0.25:
        fail(f"{cut} of {user} samples cut by the budget, expected {1 - x:.0%}")
    # the rest are mostly in bottom, at full depth; the others on the way down or up
    if whole < 0.7 * (user - cut):
        fail(f"{whole} of the {user - cut} samples not cut were walked whole at full depth")
    if truncated != cut:
        fail(f"{truncated} samples truncated, {cut} of them by the budget: every truncated "
             f"sample of this workload is the budget's")
    root = re.compile(expand("{START}") + "(?:;|$)")
    rooted = sum(s.count for s in read_folded(args.folded) if root.match(";".join(s.user)))
    if stats["walked"]["count"] > rooted:
        fail(f"{stats['walked']['count']} samples counted as walked to the bottom, "
             f"only {rooted} begin at a root")


def cmd_exec(args):
    samples = read_folded(args.folded)
    exec_only = [s for s in samples if s.user == ["[exec]"]]
    # in the system call, or on the way back to user space from it (its exit's
    # tracepoints, held there by a signal), or in an interrupt taken from user
    # space at the new program's first instruction, its stack pointer still
    # where exec left it (the kernel stack then begins at the interrupt's
    # entry); a sample without its kernel stack says nothing
    inside = re.compile(r"sys_execve|syscall_exit|exit_to_user_mode")
    from_user = re.compile(r"asm_(sysvec_\w+|common_interrupt)_\[k\]")
    outside = [s for s in exec_only
               if s.kernel and not any(inside.search(f) for f in s.kernel)
               and not from_user.fullmatch(s.kernel[0])]
    if outside:
        show(outside, "[exec] samples outside an execve system call:")
        fail(f"{sum(s.count for s in outside)} [exec] samples outside execve")
    freeing = [s for s in samples if "begin_new_exec_[k]" in s.kernel and
               ("__mmput_[k]" in s.kernel or "exit_mmap_[k]" in s.kernel)]
    total = sum(s.count for s in freeing)
    good = [s for s in freeing if s.user == ["[exec]"]]
    new = sum(s.count for s in good if comm_matches(s, args.comm))
    old = sum(s.count for s in good if comm_matches(s, args.old))
    ratio = sum(s.count for s in good) / total if total else 0
    print(f"samples freeing the old program's memory in exec: {total}, [exec]: {ratio:.2%}, "
          f"under {args.comm}: {new}, under {args.old}: {old}; all [exec] samples: "
          f"{sum(s.count for s in exec_only)}", file=sys.stderr)
    if total < args.min_samples:
        fail(f"{total} samples inside exec freeing the old memory, expected at least "
             f"{args.min_samples}")
    if ratio < 0.99:
        show([s for s in freeing if s not in good], "samples past exec's point of no return "
             "that are not [exec]:", 4)
        fail(f"only {ratio:.2%} of the samples past exec's point of no return are [exec]")
    if new < 3 * old:
        fail(f"{new} samples freeing {args.old}'s memory under {args.comm}, the new program, "
             f"and {old} under {args.old}: not the new program's name")


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
    if args.max is not None and value > args.max:
        print(text, file=sys.stderr)
        fail(f"summary {args.field} is {value}, expected at most {args.max}")


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


def cmd_stats(args):
    with open(args.json) as f:
        st = json.load(f)
    # shares of the samples with a user stack, as record's summary gives them: a
    # kernel thread's or one inside exec has none to walk
    n = st["user_samples"]
    walked = st["walked"]["count"]
    bottom = walked + st["frame_pointer_bottom"]["count"]
    errors = ", ".join(f"{k} {v}" for k, v in sorted(st["errors"].items(), key=lambda e: -e[1])
                       if v)
    ratio = walked / n if n else 0
    bottom_ratio = bottom / n if n else 0
    print(f"samples {st['samples']}, {n} with a user stack: walked to the bottom {walked} ({ratio:.2%}), "
          f"frame pointers {st['frame_pointer']['count']} "
          f"({st['frame_pointer_bottom']['count']} to the bottom), "
          f"truncated {st['truncated']['count']}, "
          f"lost {st['lost']}, processes {st['processes']}; errors: {errors or 'none'}",
          file=sys.stderr)
    if n < args.min_samples:
        fail(f"{n} samples, expected at least {args.min_samples}")
    if ratio < args.min_walked:
        fail(f"{ratio:.2%} of the samples walked to the bottom, expected at least "
             f"{args.min_walked:.0%}")
    if bottom_ratio < args.min_bottom:
        fail(f"{bottom_ratio:.2%} of the samples reached the bottom (tables or frame "
             f"pointers), expected at least {args.min_bottom:.0%}")


def cmd_roots(args):
    samples = [s for s in read_folded(args.folded)
               if args.comm is None or comm_matches(s, args.comm)]
    # a stripped executable's _start is a frame without a name below glibc's start
    roots = ([expand(r) for r in args.root] if args.root else
             [r"_start", r"[^;]+;__libc_start_main(?:_impl|_alias_[12])?(?:@@?GLIBC_[0-9.]+)?",
              THREAD])
    root = re.compile("(?:" + "|".join(roots) + ")(?:;|$)")
    empty = sum(s.count for s in samples if not s.user)
    # inside execve past its point of no return the old stack is gone: nothing to walk
    in_exec = sum(s.count for s in samples if s.user == ["[exec]"])
    samples = [s for s in samples if s.user and s.user != ["[exec]"]]
    total = sum(s.count for s in samples)
    good = [s for s in samples if root.match(";".join(s.user))]
    ratio = sum(s.count for s in good) / total if total else 0
    what = "samples" + (f" of {args.comm}" if args.comm else "")
    print(f"{what} with user frames: {total} ({empty} without, {in_exec} inside exec), "
          f"beginning at a root: {ratio:.2%}", file=sys.stderr)
    if total < args.min_samples:
        fail(f"{total} {what} with user frames, expected at least {args.min_samples}")
    if ratio < args.min_ratio:
        show([s for s in samples if s not in good], "stacks that do not begin at a root:")
        fail(f"{ratio:.2%} of the {what} begin at a root, expected at least "
             f"{args.min_ratio:.0%}")


def perf_map_names(path):
    """The names of a perf map, as the folded writer writes them."""
    names = set()
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\r\n").split(maxsplit=2)
            if len(parts) == 3:
                names.add(parts[2].strip().replace(";", ":"))
    return names


def cmd_jit_unnamed(args):
    names = perf_map_names(args.map)
    own = re.compile(args.named_re) if args.named_re else None
    anon = re.compile(r"\[anon\+0x[0-9a-f]+\]")
    total = unnamed = named = 0
    for s in read_folded(args.folded):
        if not comm_matches(s, args.comm) or s.tid != s.pid:
            continue
        total += s.count
        unnamed += s.count if any(anon.fullmatch(f) for f in s.user) else 0
        named += s.count if any(f in names for f in s.user) or \
            (own and any(own.fullmatch(f) for f in s.python)) else 0
    ratio = unnamed / total if total else 1
    print(f"samples of {args.comm}'s main thread: {total}, with a JIT frame named from "
          f"{args.map}{' or by the runtime' if own else ''}: {named}, with one unnamed: "
          f"{unnamed} ({ratio:.2%})", file=sys.stderr)
    if named < args.min_named:
        fail(f"{named} samples with a JIT frame named, expected {args.min_named}")
    if ratio > args.max_ratio:
        fail(f"{ratio:.2%} of the main thread's samples have an unnamed JIT frame, expected "
             f"at most {args.max_ratio:.0%}")


def cmd_jit_named(args):
    names = perf_map_names(args.map)
    anon = re.compile(r"\[anon\+0x[0-9a-f]+\]")
    leaves = collections.Counter()
    for s in read_folded(args.folded):
        if comm_matches(s, args.comm) and s.user and (s.leaf() in names or
                                                      anon.fullmatch(s.leaf())):
            leaves[s.leaf()] += s.count
    total = sum(leaves.values())
    named = sum(n for leaf, n in leaves.items() if leaf in names)
    ratio = named / total if total else 0
    print(f"samples of {args.comm} in JIT code: {total}, named from {args.map}: {named} "
          f"({ratio:.1%}); leaves: {leaves.most_common(4)}", file=sys.stderr)
    if total < args.min_samples:
        fail(f"{total} samples in JIT code, expected at least {args.min_samples}")
    if ratio < args.min_ratio:
        fail(f"{ratio:.1%} of the samples in JIT code are named, expected at least "
             f"{args.min_ratio:.0%}")
    if args.expect_leaf and leaves.most_common(1)[0][0] != args.expect_leaf:
        fail(f"the most frequent JIT leaf is {leaves.most_common(1)[0][0]!r}, "
             f"expected {args.expect_leaf!r}")


def readelf(*args):
    return subprocess.run(["readelf", *args], check=True, capture_output=True,
                          text=True).stdout


def cmd_fde_starts(args):
    loads = [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
             for m in re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)",
                                  readelf("-lW", args.elf))]

    def offset(vaddr):
        for off, va, filesz in loads:
            if va <= vaddr < va + filesz:
                return vaddr - va + off
        return None

    fdes = [int(m.group(1), 16) for m in re.finditer(r" FDE .*pc=([0-9a-f]+)\.\.",
                                                      readelf("--debug-dump=frames", args.elf))]
    starts = {offset(pc) for pc in fdes}
    entry = int(re.search(r"Entry point address:\s+0x([0-9a-f]+)",
                          readelf("-hW", args.elf)).group(1), 16)
    symbols = readelf("-sW", "--dyn-syms", args.elf)
    if re.search(r"\s_start$", symbols, re.M):
        fail(f"{args.elf} has a symbol _start: the check needs a file without one")
    if not any(lo == entry for lo in fdes):
        fail(f"no FDE of {args.elf} starts at its entry point 0x{entry:x}")
    frame = re.compile(r"\[" + re.escape(os.path.basename(args.elf)) + r"\+0x([0-9a-f]+)\]")
    at_start = other = 0
    wrong = collections.Counter()
    for s in read_folded(args.folded):
        if not comm_matches(s, args.comm):
            continue
        for f in s.user:
            m = frame.fullmatch(f)
            if m and int(m.group(1), 16) in starts:
                at_start += s.count
            elif m:
                other += s.count
                wrong[f] += s.count
    total = at_start + other
    ratio = at_start / total if total else 0
    print(f"{args.comm}: {total} frames in {os.path.basename(args.elf)} without a symbol, "
          f"{ratio:.2%} named by the start of an FDE ({len(fdes)} FDEs, entry point "
          f"0x{entry:x})", file=sys.stderr)
    if wrong:
        print(f"  not at an FDE's start: {wrong.most_common(6)}", file=sys.stderr)
    if total < args.min_frames:
        fail(f"{total} frames without a symbol, expected at least {args.min_frames}")
    if ratio < args.min_ratio:
        fail(f"{ratio:.2%} of them are at the start of an FDE, expected at least "
             f"{args.min_ratio:.0%}")


class FdeFunctions:
    """The functions of an ELF file by its .eh_frame's FDEs, as readelf lists
    them, for code without symbols: record names such code by the function
    that holds it, [FILE+0xSTART] with the file offset of its start, or
    _start at the entry point."""

    cache = {}

    def __init__(self, path):
        try:
            self.loads = [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
                          for m in re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ "
                                               r"0x([0-9a-f]+)", readelf("-lW", path))]
            self.entry = int(re.search(r"Entry point address:\s+0x([0-9a-f]+)",
                                       readelf("-hW", path)).group(1), 16)
            fdes = sorted((int(m.group(1), 16), int(m.group(2), 16)) for m in
                          re.finditer(r" FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)",
                                      readelf("--debug-dump=frames", path)))
        except (subprocess.CalledProcessError, OSError, AttributeError):
            self.loads, self.entry, fdes = [], None, []
        self.los = [lo for lo, _ in fdes]
        self.his = [hi for _, hi in fdes]

    @classmethod
    def of(cls, path):
        if path not in cls.cache:
            cls.cache[path] = cls(path)
        return cls.cache[path]

    def convert(self, value, to_vaddr):
        for off, vaddr, filesz in self.loads:
            src, dst = (off, vaddr) if to_vaddr else (vaddr, off)
            if src <= value < src + filesz:
                return value - src + dst
        return None

    def name(self, offset, base):
        """The name of the function at file offset offset, None when no FDE holds it."""
        vaddr = self.convert(offset, True)
        i = bisect.bisect_right(self.los, vaddr) - 1 if vaddr is not None else -1
        if i < 0 or vaddr >= self.his[i]:
            return None
        if self.los[i] == self.entry:
            return "_start"
        start = self.convert(self.los[i], False)
        return f"[{base}+0x{start:x}]" if start is not None else None


def perf_frame(ip, sym, dso, leaf):
    """A frame of `perf script` named as record names it (see cmd_perf)."""
    if sym != "[unknown]":
        return sym
    if dso == "[unknown]":
        return "[unknown]"
    # perf prints offsets in the file, a caller's inside its call (return address - 1)
    name = FdeFunctions.of(dso).name(ip, os.path.basename(dso)) if dso.startswith("/") else None
    return name or f"[{os.path.basename(dso)}+0x{ip + (0 if leaf else 1):x}]"


def perf_folded(text):
    """The samples of `perf script -F comm,pid,tid,ip,sym,dso`, as folded lines,
    and the user-space files perf named functions of, with the names."""
    stacks = collections.Counter()
    named = collections.defaultdict(set)
    head, frames = None, []

    def flush():
        if head is None:
            return
        kernel = [f for k, f in frames if k]
        user = [f for k, f in frames if not k]
        # perf lists leaf first; record's lines are root first, user then kernel
        stacks[";".join([head] + user[::-1] + [f + "_[k]" for f in kernel[::-1]])] += 1

    frame_re = re.compile(r"\s+([0-9a-f]+) (.*) \(([^()]*)\)")
    head_re = re.compile(r"(\S.*?)\s+\d+/\d+\s*")
    for line in text.splitlines():
        m = frame_re.fullmatch(line)
        if m and head is not None:
            ip = int(m.group(1), 16)
            kernel = ip >= 1 << 63
            user_leaf = not kernel and not any(not k for k, _ in frames)
            frames.append((kernel, perf_frame(ip, m.group(2), m.group(3), user_leaf)))
            if not kernel and m.group(2) != "[unknown]" and m.group(3).startswith("/"):
                named[m.group(3)].add(re.sub(r"@.*", "", m.group(2)))
            continue
        m = head_re.fullmatch(line)
        if m:
            flush()
            head, frames = m.group(1).replace(";", ":"), []
    flush()
    return stacks, named


def elf_sections(data):
    """(name, type, offset, size, link) of each section of an ELF64 image."""
    if data[:5] != b"\x7fELF\x02":
        return []
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    raw = [struct.unpack_from("<IIQQQQI", data, shoff + i * shentsize) for i in range(shnum)]
    if shstrndx >= len(raw):
        return []
    strtab = raw[shstrndx][4]

    def name(off):
        return data[strtab + off:data.index(b"\0", strtab + off)].decode(errors="replace")
    return [(name(r[0]), r[1], r[4], r[5], r[6]) for r in raw]


def elf_functions(path):
    """{address: names} of the functions in an ELF file's .symtab and .dynsym,
    and in its debug file under /usr/lib/debug/.build-id when there is one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    sections = elf_sections(data)
    funcs = collections.defaultdict(set)
    for _, stype, off, size, link in sections:
        if stype not in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
            continue
        stroff = sections[link][2]
        for st_name, info, _, _, value, _ in struct.iter_unpack("<IBBHQQ", data[off:off + size]):
            if value and info & 0xf in (2, 10):  # STT_FUNC, STT_GNU_IFUNC
                end = data.index(b"\0", stroff + st_name)
                name = data[stroff + st_name:end].decode(errors="replace")
                funcs[value].add(re.sub(r"@.*", "", name))
    for sname, _, off, size, _ in sections:
        if sname == ".note.gnu.build-id" and size > 16:
            build_id = data[off + 16:off + size].hex()
            debug = f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug"
            if os.path.exists(debug) and debug != path:
                for addr, names in elf_functions(debug).items():
                    funcs[addr] |= names
    return funcs


def aliases_of(named):
    """{name: the name perf gave its function} for the other names of each
    function perf named (the first of them if it used several): perf and
    record may pick different names of one function (memcpy or memmove)."""
    aliases = {}
    for path, names in named.items():
        for group in elf_functions(path).values():
            if len(group) > 1 and group & names:
                first = min(group & names)
                for n in group:
                    aliases[n] = first
    return aliases


def cmd_perf(args):
    data, log = args.folded + ".data", args.folded + ".log"
    # perf 6.1 (libdw) fails to unwind some processes past their first frame
    # in libc, depending on where ASLR put their libraries: about half of the
    # runs of cc1plus here. Without ASLR the layout is fixed, and unwound.
    with open(log, "w") as f:
        start = time.monotonic()
        try:
            rec = subprocess.run(["setarch", "-R", "perf", "record", "-q", "--no-buildid-cache",
                                  "-e", "cpu-clock", "-F", str(args.freq), "--call-graph", "dwarf",
                                  "-o", data, "--"] + args.command,
                                 stdin=subprocess.DEVNULL, stdout=f, stderr=f, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            fail(f"perf record -- {' '.join(args.command)} did not finish in {args.timeout} s")
        recorded = time.monotonic() - start
        if rec.returncode:
            fail(f"perf record -- {' '.join(args.command)} exited {rec.returncode} (see {log})")
        script = subprocess.run(["perf", "script", "-i", data, "--no-inline", "--max-stack", "4096",
                                 "-F", "comm,pid,tid,ip,sym,dso"],
                                capture_output=True, text=True, errors="replace")
        f.write(script.stderr)
    if script.returncode:
        fail(f"perf script exited {script.returncode} (see {log})")
    stacks, named = perf_folded(script.stdout)
    with open(args.folded, "w") as f:
        for stack, count in sorted(stacks.items()):
            print(f"{stack} {count}", file=f)
    with open(args.folded + ".aliases", "w") as f:
        json.dump(aliases_of(named), f, indent=0, sort_keys=True)
    os.unlink(data)
    print(f"perf: {sum(stacks.values())} samples, {len(stacks)} stacks, recorded in "
          f"{recorded:.1f} s, read in {time.monotonic() - start - recorded:.1f} s",
          file=sys.stderr)


def without_parameters(name):
    """A demangled C++ name without its parameter list: demanglers differ in
    whether they print it."""
    name = re.sub(r"(?: const| volatile| &| &&)+$", "", name)
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, 0, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i] if name[i - 1] not in "<(" else name
    return name


def frame_key(frame, leaf, aliases):
    m = re.fullmatch(r"\[(.+)\+0x[0-9a-f]+\]", frame)
    if m:
        return f"[{m.group(1)}]" if leaf else frame
    frame = re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", frame)
    frame = aliases.get(frame, frame)
    return without_parameters(re.sub(r"::h[0-9a-f]{16}$", "", frame))


def near_leaf_shares(path, comm, depth, aliases):
    """Share of the samples with user frames that have each frame near their leaf."""
    found = collections.Counter()
    total = 0
    for s in read_folded(path):
        if not s.user or (comm is not None and not comm_matches(s, comm)):
            continue
        total += s.count
        near = s.user[-depth:]
        keys = {f"{s.comm}: {frame_key(f, i == len(near) - 1, aliases)}"
                for i, f in enumerate(near)}
        for k in keys:
            found[k] += s.count
    return {k: n / total for k, n in found.items()} if total else {}, total


def cmd_compare(args):
    aliases = {}
    if os.path.exists(args.reference + ".aliases"):
        with open(args.reference + ".aliases") as f:
            aliases = json.load(f)
    ours, n_ours = near_leaf_shares(args.folded, args.comm, args.depth, aliases)
    ref, n_ref = near_leaf_shares(args.reference, args.comm, args.depth, aliases)
    what = "self time" if args.depth == 1 else f"the {args.depth} frames nearest the leaf"
    print(f"{what}: {n_ours} samples, reference {n_ref}", file=sys.stderr)
    if n_ours < args.min_samples or n_ref < args.min_samples:
        fail(f"{n_ours} samples and {n_ref} in the reference, expected at least "
             f"{args.min_samples} in each")
    if args.min_other is None:
        args.min_other = args.min_share / 2
    hot = sorted({k for k, v in list(ours.items()) + list(ref.items()) if v >= args.min_share},
                 key=lambda k: -max(ours.get(k, 0), ref.get(k, 0)))
    bad = []
    print(f"  {'profile':>8} {'reference':>9}  frame", file=sys.stderr)
    for k in hot:
        a, b = ours.get(k, 0), ref.get(k, 0)
        ok = min(a, b) >= args.min_other
        if not ok:
            bad.append(k)
        print(f"  {a:8.2%} {b:9.2%}  {k[:150]}{'' if ok else '   <-- differs'}",
              file=sys.stderr)
    if bad:
        fail(f"{len(bad)} of the {len(hot)} frames found near the leaf of at least "
             f"{args.min_share:.0%} of one profile's samples have less than "
             f"{args.min_other:.1%} in the other's")


def elf_loads(path):
    """(file offset, virtual address, file size) of the PT_LOAD segments of an ELF64 file."""
    with open(path, "rb") as f:
        ehdr = f.read(64)
        if ehdr[:5] != b"\x7fELF\x02":
            fail(f"{path}: not an ELF64 file")
        phoff, = struct.unpack_from("<Q", ehdr, 32)
        phentsize, phnum = struct.unpack_from("<HH", ehdr, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    loads = []
    for i in range(phnum):
        ptype, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
        if ptype == 1:
            loads.append((off, vaddr, filesz))
    return loads


def pprof_raw(path):
    """go tool pprof -raw PATH: (leaf location ids, {id: (addr, mapping, [(func, line)])},
    {mapping id: (start, limit, offset, file)})."""
    out = subprocess.run(["go", "tool", "pprof", "-raw", path], capture_output=True,
                         text=True, check=False)
    if out.returncode:
        print(f"go tool pprof -raw {path}: {out.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    leaves, locations, mappings, section, last = set(), {}, {}, None, None
    for line in out.stdout.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:":
            m = re.match(r"\s+\d+\s+\d+: ([\d ]+)$", line)
            if m:
                leaves.add(int(m.group(1).split()[0]))
        elif section == "Locations":
            m = re.match(r"\s*(\d+): (0x[0-9a-f]+) M=(\d+) (\S+) (\S*):(\d+) s=", line)
            if m:
                last = int(m.group(1))
                locations[last] = (int(m.group(2), 16), int(m.group(3)),
                                   [(m.group(4), os.path.basename(m.group(5)), int(m.group(6)))])
                continue
            m = re.match(r"\s+(\S+) (\S*):(\d+) s=", line)
            if m and last is not None:
                locations[last][2].append((m.group(1), os.path.basename(m.group(2)),
                                           int(m.group(3))))
        elif section == "Mappings":
            m = re.match(r"(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+)", line)
            if m:
                mappings[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16),
                                             int(m.group(4), 16), m.group(5))
    return leaves, locations, mappings


def file_offset_to_vaddr(elf, off):
    out = subprocess.run(["readelf", "-lW", elf], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            offset, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if offset <= off < offset + filesz:
                return vaddr + off - offset
    return None


def addr2line(elf, vaddrs):
    """{vaddr: [(function, file basename, line)]}, innermost first, as addr2line -f -i gives them."""
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", elf] + [hex(v) for v in vaddrs],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    frames, current = {}, None
    i = 0
    while i < len(out):
        if re.fullmatch(r"0x[0-9a-f]+", out[i]):
            current = frames.setdefault(int(out[i], 16), [])
            i += 1
            continue
        func, where = out[i], out[i + 1] if i + 1 < len(out) else "??:0"
        where = where.split(" (discriminator")[0]
        path, _, line = where.rpartition(":")
        current.append((func, os.path.basename(path), int(line) if line.isdigit() else 0))
        i += 2
    return frames


def cmd_addr2line(args):
    leaves, locations, mappings = pprof_raw(args.pprof)
    named = {}  # leaf location id: (addr, vaddr, lines)
    for lid in sorted(leaves):
        addr, mid, lines = locations.get(lid, (0, 0, []))
        start, _, offset, path = mappings.get(mid, (0, 0, 0, ""))
        if path == args.file:
            named[lid] = (addr, file_offset_to_vaddr(args.elf, addr - start + offset), lines)
    want = addr2line(args.elf, sorted({v for _, v, _ in named.values() if v is not None}))
    wrong = [f"  {hex(addr)}: {lines} where addr2line says {want.get(vaddr)}"
             for addr, vaddr, lines in named.values() if lines != want.get(vaddr)]
    if wrong:
        fail(f"{len(wrong)} of {len(named)} leaves of {args.file} named otherwise than by "
             f"addr2line:\n" + "\n".join(wrong[:10]))
    if len(named) < args.min_leaves:
        fail(f"{len(named)} leaf locations in {args.file}, fewer than {args.min_leaves}")
    print(f"{len(named)} leaf locations of {args.file} named as addr2line names them",
          file=sys.stderr)


def cmd_go_symbols(args):
    funcs = []
    with open(args.funcs) as f:
        for line in f:
            lo, hi, name = line.split(None, 2)
            funcs.append((int(lo, 16), int(hi, 16), name.strip()))
    funcs.sort()
    starts = [fn[0] for fn in funcs]
    loads = elf_loads(args.elf)
    base = os.path.basename(args.elf)

    def name(m):
        off = int(m.group(1), 16)
        for loff, vaddr, size in loads:
            if loff <= off < loff + size:
                addr = off - loff + vaddr
                i = bisect.bisect_right(starts, addr) - 1
                # a caller's frame is its return address: it may be the end of its function
                if i >= 0 and funcs[i][0] <= addr <= funcs[i][1]:
                    return funcs[i][2]
        return m.group(0)

    frame = re.compile(r"\[" + re.escape(base) + r"\+0x([0-9a-f]+)\]")
    named = 0
    with open(args.folded) as f, open(args.out, "w") as out:
        for line in f:
            new = frame.sub(name, line)
            named += new != line
            out.write(new)
    print(f"{len(funcs)} functions of {base}; {named} stacks named", file=sys.stderr)


def dwarf_offsets(elf, fields):
    """Offsets of the members named in fields ({"runtime.m": ["curg"]}) from readelf's DWARF."""
    text = subprocess.run(["readelf", "-wi", elf], capture_output=True, text=True).stdout
    found, struct, member, depth = {}, None, None, None
    for line in text.splitlines():
        m = re.match(r"\s*<(\d+)><[0-9a-f]+>: Abbrev Number: \d+ \((\w+)\)", line)
        if m:
            tag, level = m.group(2), int(m.group(1))
            if tag == "DW_TAG_structure_type":
                struct, depth, member = "", level, None
            elif tag == "DW_TAG_member" and struct and level == depth + 1:
                member = ""
            else:
                member = None
                if level <= (depth or 0):
                    struct = None
            continue
        m = re.match(r"\s*<[0-9a-f]+>\s+DW_AT_name\s*:\s*(?:\(.*\):\s*)?(\S+)", line)
        if m and struct == "":
            struct = m.group(1)
        elif m and member == "":
            member = m.group(1)
        m = re.match(r"\s*<[0-9a-f]+>\s+DW_AT_data_member_location\s*:\s*(\d+)", line)
        if m and struct in fields and member in fields[struct]:
            found.setdefault(f"{struct}.{member}", int(m.group(1)))
    return found


def cmd_go_switch(args):
    """dump-unwind's Go stack switch against Go's own function table and the DWARF of a Go binary."""
    sw = json.load(open(args.json)).get("go_switch")
    if not sw:
        fail(f"{args.json}: no Go stack switch found")
    funcs = {}
    with open(args.funcs) as f:
        for line in f:
            lo, hi, name = line.split(None, 2)
            funcs[name.strip()] = [hex(int(lo, 16)), hex(int(hi, 16))]
    for fn in ("systemstack", "morestack"):
        if sw[fn] != funcs.get("runtime." + fn):
            fail(f"runtime.{fn}: {sw[fn]}, Go's table says {funcs.get('runtime.' + fn)}")
    d = dwarf_offsets(args.dwarf, {"runtime.g": ["m", "sched"], "runtime.m": ["g0", "curg"],
                                   "runtime.gobuf": ["sp", "pc", "bp"]})
    print(f"go switch {sw}; DWARF of {os.path.basename(args.dwarf)}: {d}", file=sys.stderr)
    want = {"g_m": "runtime.g.m", "m_g0": "runtime.m.g0", "m_curg": "runtime.m.curg"}
    for key, field in want.items():
        if field not in d or sw[key] != d[field]:
            fail(f"{key} is {sw[key]}, DWARF says {d.get(field)}")
    for key in ("sp", "pc", "bp"):
        expect = d.get("runtime.g.sched", -1) + d.get("runtime.gobuf." + key, -1000)
        if sw["sched_" + key] != expect:
            fail(f"sched_{key} is {sw['sched_' + key]}, DWARF says {expect}")
    # The thread pointer is the TCB on amd64; Go keeps g in the word below it.
    if sw["tls_g"] != -8:
        fail(f"g at fs{sw['tls_g']:+d}, expected fs-8 on amd64")


def cmd_go_vdso(args):
    """dump-unwind's vDSO callers of a Go binary against `go tool nm -sort address` and its DWARF."""
    sw = json.load(open(args.json)).get("go_switch") or {}
    vdso = sw.get("vdso")
    if not vdso:
        fail(f"{args.json}: no vDSO callers read")
        return
    # a function runs to the next one, as Go's function table has it
    text = []
    with open(args.nm) as f:
        for line in f:  # ADDR TYPE NAME
            addr, kind, name = line.split(None, 2)
            if kind in "Tt":
                text.append((int(addr, 16), re.sub(r"\.abi0$", "", name.strip())))
    funcs = {name: [hex(lo), hex(text[i + 1][0])] for i, (lo, name) in enumerate(text[:-1])}
    for fn in ("time.now", "runtime.nanotime1"):
        if vdso.get(fn) != funcs.get(fn):
            fail(f"{fn}: {vdso.get(fn)}, go tool nm says {funcs.get(fn)}")
    d = dwarf_offsets(args.dwarf, {"runtime.m": ["vdsoPC", "vdsoSP"]})
    print(f"vDSO callers {vdso}; DWARF of {os.path.basename(args.dwarf)}: {d}", file=sys.stderr)
    for key, field in (("m_vdso_pc", "runtime.m.vdsoPC"), ("m_vdso_sp", "runtime.m.vdsoSP")):
        if field not in d or vdso[key] != d[field]:
            fail(f"{key} is {vdso[key]}, DWARF says {d.get(field)}")


def chains_seen(expect, names, sample, seen, tids):
    """The keys of expect whose chain sample (its frames' names, names) runs: its leaf
    function, then burn, a "/rec" key only through rec. Each is counted in seen, and under
    the sample's thread in tids."""
    keys = []
    for key in expect:
        leaf = key.split("/")[0]
        if leaf not in names or names[-1] != "burn" or key.endswith("/rec") != ("rec" in names):
            continue
        seen[key] += sample.count
        tids[leaf][sample.tid] += sample.count
        keys.append(key)
    return keys


def chains_on_threads(expect, seen, good, tids, min_ratio):
    """Whether each chain of expect is whole in min_ratio of its samples (seen, good: samples
    by chain), and each is on one thread of its own (tids: its samples by thread), three in
    all: each thread shows its own frames, not another's. Says each figure."""
    ok = True
    for key in expect:
        share = good[key] / seen[key] if seen[key] else 0
        print(f"  {key}: {seen[key]} samples, {share:.2%} with the whole chain", file=sys.stderr)
        ok &= seen[key] >= 20 and share >= min_ratio
    owners = {leaf: c.most_common(1)[0] for leaf, c in tids.items() if c}
    for leaf, c in tids.items():
        share = owners[leaf][1] / sum(c.values())
        print(f"  {leaf}: on thread {owners[leaf][0]} in {share:.2%} of its samples",
              file=sys.stderr)
        ok &= share >= min_ratio
    return ok and len({t for t, _ in owners.values()}) == 3


def cmd_python(args):
    """Python frames of the known chains of pythreads.py, each on its own thread."""
    # co_qualname from 3.11 on names the method with its class; co_name before
    a1 = "Alpha.a1" if args.qualname else "a1"
    expect = {
        "spin_alpha": ["alpha_main", a1, "a2", "spin_alpha", "burn"],
        "spin_beta": ["beta_main", "b1", "spin_beta", "burn"],
        "spin_beta/rec": ["beta_main"] + ["rec"] * 7 + ["spin_beta", "burn"],
        "spin_key": ["<module>", "main", "sorter", "keyfn", "spin_key", "burn"],
    }
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    total = sum(s.count for s in samples)
    python = sum(s.count for s in samples if s.python)
    tids = collections.defaultdict(collections.Counter)
    good, seen, native_between = collections.Counter(), collections.Counter(), 0
    for s in samples:
        names = [PYTHON_FRAME.fullmatch(f).group(1) for f in s.python]
        # the chain from the thread's function down to the Python leaf
        for key in chains_seen(expect, names, s, seen, tids):
            chain = expect[key]
            if names[-len(chain):] == chain and (key != "spin_key" or names[0] == "<module>"):
                good[key] += s.count
            if key == "spin_key":
                # sorted() is C: native frames stand between sorter and keyfn
                i, j = s.frames.index(next(f for f in s.frames if f.startswith("sorter ("))), \
                    s.frames.index(next(f for f in s.frames if f.startswith("keyfn (")))
                native_between += s.count if any(not PYTHON_FRAME.fullmatch(f)
                                                 for f in s.frames[i + 1:j]) else 0
    print(f"{total} samples, {python} with Python frames", file=sys.stderr)
    ok = total >= args.min_samples and python >= args.min_python * total
    ok &= chains_on_threads(expect, seen, good, tids, args.min_ratio)
    share = native_between / seen["spin_key"] if seen["spin_key"] else 0
    print(f"  native frames between sorter and keyfn: {share:.2%}", file=sys.stderr)
    ok &= share >= args.min_ratio
    if args.source:
        ok &= python_leaf_lines(samples, args.source, "burn", args.min_ratio)
    if not ok:
        show(samples, "top stacks:")
        fail("the Python frames are not those of the threads' chains")


def function_lines(source, name):
    """The lines of the body of function name in a Python source, as its own parser says."""
    fn = next(n for n in ast.walk(ast.parse(open(source).read()))
              if isinstance(n, ast.FunctionDef) and n.name == name)
    return fn.body[0].lineno, fn.end_lineno


def python_leaf_lines(samples, source, name, min_ratio):
    """Of the samples whose Python leaf is function name, the share whose line lies in its body
    (by the file's basename: the file is the interpreter's path, maybe inside another root)."""
    first, last = function_lines(source, name)
    leaf = inside = 0
    for s in samples:
        m = PYTHON_FRAME.fullmatch(s.python[-1]) if s.python else None
        if not m or m.group(1) != name:
            continue
        leaf += s.count
        if (os.path.basename(m.group(2)) == os.path.basename(source)
                and first <= int(m.group(3) or 0) <= last):
            inside += s.count
    share = inside / leaf if leaf else 0
    print(f"  {name}'s line in {first}..{last} of {os.path.basename(source)}: {share:.2%} "
          f"of {leaf}", file=sys.stderr)
    return share >= min_ratio


def cmd_python_short(args):
    """A Python process of 20 ms: its frames named, although it is gone at the end, and
    those of the modules it imported too, although their code is freed once they have run."""
    samples = read_folded(args.folded)
    named = sum(s.count for s in samples
                if any(f == "<module> (<string>:3)" for f in s.python))
    python = sum(s.count for s in samples if s.python)
    unknown = sum(s.count for s in samples if any(f.startswith("<unknown>") for f in s.python))
    print(f"{named} samples in <module> (<string>:3), {python} with Python frames, "
          f"{unknown} with unnamed ones", file=sys.stderr)
    if named < args.min_samples or unknown > max(1, python // 50):
        show(samples, "top stacks:")
        fail("the frames of a short-lived Python process are not named")


def cmd_python_deep(args):
    """A deep Python recursion: the samples in it have every one of its frames."""
    samples = read_folded(args.folded)
    inside = [s for s in samples if any(f.startswith(args.function + " (") for f in s.python)]
    whole = sum(s.count for s in inside
                if sum(f.startswith(args.function + " (") for f in s.python) >= args.frames)
    total = sum(s.count for s in inside)
    deepest = max((sum(f.startswith(args.function + " (") for f in s.python) for s in inside),
                  default=0)
    print(f"{whole} of {total} samples in {args.function} have its {args.frames} frames "
          f"(the deepest {deepest})", file=sys.stderr)
    if total < args.min_samples or whole < 0.95 * total:
        show(samples, "top stacks:")
        fail(f"fewer than 95% of the samples in {args.function} have all {args.frames} frames")


def cmd_ruby(args):
    """Ruby frames of the known chains of rbthreads.rb, each on its own thread, and burn's
    lines inside its loop."""
    top = "block in <main>"  # a thread's block
    expect = {
        "spin_alpha": [top, "alpha_main", "a1", "a2", "spin_alpha", "burn"],
        "spin_beta": [top, "beta_main", "b1", "spin_beta", "burn"],
        "spin_beta/rec": [top, "beta_main"] + ["rec"] * 7 + ["spin_beta", "burn"],
        "spin_key": ["<main>", "sorter", "sort_by", "each", "block in sorter", "keyfn",
                     "spin_key", "burn"],
    }
    # the C methods on the way, named from Ruby's symbol table
    cfuncs = {"sort_by", "each"}
    src = open(args.source).read().splitlines()
    first = next(i for i, ln in enumerate(src, 1) if ln.endswith("# BURN_FIRST"))
    last = next(i for i, ln in enumerate(src, 1) if ln.endswith("# BURN_LAST"))
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    total = sum(s.count for s in samples)
    tids = collections.defaultdict(collections.Counter)
    good, seen = collections.Counter(), collections.Counter()
    native_between = in_loop = burned = jitted = 0
    for s in samples:
        ruby = [f for f in s.frames if PYTHON_FRAME.fullmatch(f) or f in cfuncs or f == "<cfunc>"]
        names = [PYTHON_FRAME.fullmatch(f).group(1) if PYTHON_FRAME.fullmatch(f) else f
                 for f in ruby]
        if names and names[-1] == "burn":
            m = PYTHON_FRAME.fullmatch(ruby[-1])
            burned += s.count
            if m.group(2) == (args.path or args.source) and first <= int(m.group(3) or 0) <= last:
                in_loop += s.count
            # JIT code (anonymous memory, no CFI) between the VM loop and burn's callees
            jitted += s.count if any(f.startswith("[anon+") for f in s.frames) else 0
        for key in chains_seen(expect, names, s, seen, tids):
            if names == expect[key]:
                good[key] += s.count
            if key == "spin_key" and "each" in s.frames and "block in sorter" in names:
                # each is C: its native frames stand between it and the block
                j = next(k for k, f in enumerate(s.frames) if f.startswith("block in sorter ("))
                i = max(k for k, f in enumerate(s.frames[:j]) if f == "each")
                native_between += s.count if j > i + 1 else 0
    ruby_samples = sum(s.count for s in samples if any(PYTHON_FRAME.fullmatch(f)
                                                       for f in s.frames))
    print(f"{total} samples, {ruby_samples} with Ruby frames", file=sys.stderr)
    ok = total >= args.min_samples and ruby_samples >= args.min_with_frames * total
    ok &= chains_on_threads(expect, seen, good, tids, args.min_ratio)
    share = native_between / seen["spin_key"] if seen["spin_key"] else 0
    print(f"  native frames between each and its block: {share:.2%}", file=sys.stderr)
    ok &= share >= args.min_ratio
    share = in_loop / burned if burned else 0
    print(f"  burn's line in {first}..{last} of {args.path or args.source}: {share:.2%}",
          file=sys.stderr)
    ok &= share >= args.min_line_ratio
    share = jitted / burned if burned else 0
    print(f"  burn's samples through JIT code: {share:.2%}", file=sys.stderr)
    ok &= share >= args.min_jit
    if not ok:
        show(samples, "top stacks:")
        fail("the Ruby frames are not those of the threads' chains")


def elf_dynsym(elf, name):
    """(value, size) of the exported symbol name of elf (readelf), or None."""
    syms = subprocess.run(["readelf", "-Ws", "--dyn-syms", elf], capture_output=True,
                          text=True, check=True).stdout
    for ln in syms.splitlines():
        f = ln.split()
        if len(f) >= 8 and f[7] == name and f[6] != "UND":
            return int(f[1], 16), int(f[2], 0)
    return None


def objdump_fn(elf, name):
    """The instructions of the exported function name of elf, as objdump prints them:
    [(address, "mnemonic operands # comment")]."""
    value, size = elf_dynsym(elf, name)
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={value:#x}",
                          f"--stop-address={value + size:#x}", elf], capture_output=True,
                         text=True, check=True).stdout
    return [(int(m.group(1), 16), m.group(2).strip())
            for m in re.finditer(r"^ *([0-9a-f]+):\t(.*)$", out, re.M)]


def elf_word(elf, vaddr):
    """The 8 bytes at vaddr in the file of elf (a PT_LOAD segment's, readelf -l)."""
    segs = subprocess.run(["readelf", "-lW", elf], capture_output=True, text=True,
                          check=True).stdout
    for ln in segs.splitlines():
        f = ln.split()
        if f and f[0] == "LOAD" and int(f[2], 16) <= vaddr < int(f[2], 16) + int(f[4], 16):
            with open(elf, "rb") as fd:
                fd.seek(int(f[1], 16) + vaddr - int(f[2], 16))
                return struct.unpack("<Q", fd.read(8))[0]
    fail(f"{vaddr:#x} is in no PT_LOAD segment of {elf}")


def ruby_ec_by_objdump(elf, relocs):
    """ruby_current_ec as rb_thread_current loads it, by objdump: the GOT pair its lea
    passes to __tls_get_addr (a DTPMOD64 slot, then the offset the link wrote), plus the
    displacement of the load from the address that returns."""
    insns = objdump_fn(elf, "rb_thread_current")
    i = next(i for i, (_, t) in enumerate(insns) if re.match(r"(data16 )?lea .*\(%rip\),%rdi", t))
    slot = int(re.search(r"# ([0-9a-f]+)", insns[i][1]).group(1), 16)
    load = next(t for _, t in insns[i + 2:] if "(%rax)," in t)
    disp = re.match(r"mov +(-?0x[0-9a-f]+)?\(%rax\),", load)
    if not disp or f"{slot:x} " not in relocs.get("R_X86_64_DTPMOD64", ""):
        fail(f"rb_thread_current: {insns[i][1]} then {load}: not a load of a TLS variable")
    return {"ec_module_got": hex(slot),
            "ec_offset": hex(elf_word(elf, slot + 8) + int(disp.group(1) or "0", 16))}


def ruby_vm_exec_by_objdump(elf):
    """rb_vm_exec as the jump rb_iseq_eval and rb_iseq_eval_main both end in, by objdump,
    its range its FDE's (readelf -wf)."""
    targets = []
    for fn in ("rb_iseq_eval", "rb_iseq_eval_main"):
        lo, size = elf_dynsym(elf, fn)
        targets.append({int(m.group(1), 16) for _, t in objdump_fn(elf, fn)
                        if (m := re.match(r"jmp +([0-9a-f]+) ", t))
                        and not lo <= int(m.group(1), 16) < lo + size})
    common = targets[0] & targets[1]
    if len(common) != 1:
        fail(f"rb_iseq_eval and rb_iseq_eval_main jump out to {targets}, not one function")
        return {}
    lo = common.pop()
    frames = subprocess.run(["readelf", "-wf", elf], capture_output=True, text=True,
                            check=True).stdout
    his = [int(b, 16) for a, b in re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", frames)
           if int(a, 16) == lo]
    return {"vm_exec": [hex(lo), hex(his[0])]} if his else {}


def cmd_ruby_runtime(args):
    """What dump-unwind reads of libruby equals what readelf says of it (on aarch64, the
    slot of ruby_current_ec's TLS descriptor), or, where libruby does not export them
    (3.3), what objdump shows of the code that uses them."""
    got = json.load(open(args.json))["ruby"]
    syms = subprocess.run(["readelf", "-Ws", "--dyn-syms", args.elf], capture_output=True,
                          text=True, check=True).stdout
    relocs = subprocess.run(["readelf", "-rW", args.elf], capture_output=True, text=True,
                            check=True).stdout
    by_type = collections.defaultdict(str)
    want = {}
    for ln in syms.splitlines():
        f = ln.split()
        if len(f) >= 8 and f[7] == "rb_vm_exec" and f[3] == "FUNC":
            lo = int(f[1], 16)
            want["vm_exec"] = [hex(lo), hex(lo + int(f[2], 0))]
        if len(f) >= 8 and f[7] == "ruby_current_ec" and f[3] == "TLS":
            want["ec_offset"] = hex(int(f[1], 16))
    for ln in relocs.splitlines():
        f = ln.split()
        if len(f) >= 3:
            by_type[f[2]] += f[0].lstrip("0") + " "
        if len(f) >= 5 and f[2] == "R_X86_64_DTPMOD64" and f[4] == "ruby_current_ec":
            want["ec_module_got"] = hex(int(f[0], 16))
        if len(f) >= 5 and f[2] == "R_AARCH64_TLSDESC" and f[4] == "ruby_current_ec":
            want["ec_tlsdesc_got"] = hex(int(f[0], 16))
    if "ec_module_got" not in want and "ec_tlsdesc_got" not in want:
        # hidden: found in the code; a local symbol, where there is one, must agree
        code = ruby_ec_by_objdump(args.elf, by_type)
        if want.get("ec_offset", code["ec_offset"]) != code["ec_offset"]:
            fail(f"rb_thread_current loads {code['ec_offset']}, the symbol says "
                 f"{want['ec_offset']}")
        want.update(code)
        want["ec_from"] = "rb_thread_current"
    if "vm_exec" not in want:
        want.update(ruby_vm_exec_by_objdump(args.elf))
        want["vm_exec_from"] = "rb_iseq_eval"
    print(f"dump-unwind: {got}; readelf and objdump: {want}", file=sys.stderr)
    for key, value in want.items():
        if got.get(key) != value:
            fail(f"{key} is {got.get(key)}, readelf and objdump say {value}")
    if not {"vm_exec", "ec_offset"} <= want.keys() or \
            not {"ec_module_got", "ec_tlsdesc_got"} & want.keys():
        fail(f"readelf and objdump did not show rb_vm_exec, ruby_current_ec and its module: {want}")


def cmd_ruby_tls(args):
    """Each Ruby thread's execution context, reached as the walk reaches it (the thread's
    DTV at fs:8, its module's block, ruby_current_ec at its offset; dump-unwind's JSON),
    read by gdb attached to the process, leads to the Thread object (ec->thread_ptr->self)
    the thread itself printed (Thread#inspect): the ADDRESSes of lines "#<Thread:ADDRESS".
    """
    rb = json.load(open(args.json))["ruby"]
    printed = {int(a, 16) for a in re.findall(r"#<Thread:(0x[0-9a-f]+)", open(args.printed).read())}
    bias = next(int(ln.split("-")[0], 16) for ln in open(f"/proc/{args.pid}/maps")
                if ln.rstrip().endswith(os.path.basename(args.elf)) and " 00000000 " in ln)
    module = f"*(long *){bias + int(rb['ec_module_got'], 16):#x}"
    ec = f"*(long *)(*(long *)(*(long *)($fs_base + 8) + {module} * 16) + {rb['ec_offset']})"
    expr = f"*(long *)(*(long *)({ec} + {args.thread_ptr}) + {args.self_off})"
    out = subprocess.run(["gdb", "-p", str(args.pid), "-batch", "-nx", "-ex",
                          f"thread apply all -c p/x {expr}"], capture_output=True, text=True,
                         timeout=60).stdout
    found = {int(a, 16) for a in re.findall(r"^\$\d+ = (0x[0-9a-f]+)$", out, re.M)}
    print(f"threads printed {sorted(map(hex, printed))}, gdb read {sorted(map(hex, found))}",
          file=sys.stderr)
    if not printed or printed != found:
        fail("the execution contexts read through the TLS are not the threads'")


def cmd_ruby_pprof(args):
    """In pprof (go tool pprof -raw), the Ruby functions of the chains are functions with
    the file and first line of their def in the source, each location's line inside them."""
    src = open(args.source).read().splitlines()
    defs = {}
    for i, ln in enumerate(src, 1):
        m = re.match(r"( *)def (\w+)", ln)
        if m:
            end = next(j for j in range(i + 1, len(src) + 1) if src[j - 1] == m.group(1) + "end")
            defs[m.group(2)] = (i, end)
    raw = subprocess.run(["go", "tool", "pprof", "-raw", args.pprof], capture_output=True,
                         text=True, check=True).stdout
    seen, bad = collections.Counter(), []
    for m in re.finditer(r"^ +\d+: 0x[0-9a-f]+ M=\d+ (\w+) (.*):(\d+) s=(\d+)$", raw, re.M):
        name, path, line, start = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        if name not in defs:
            continue
        seen[name] += 1
        first, last = defs[name]
        if path != args.path or start != first or not first <= line <= last:
            bad.append(m.group(0).strip())
    print(f"pprof locations of the chains' functions: {dict(seen)}", file=sys.stderr)
    if bad or len(seen) < args.min_functions:
        fail(f"{len(seen)} functions of the source named, expected {args.min_functions}; "
             f"not in their def: {bad[:5]}")


def perl_sub_lines(source):
    """Each sub of a Perl source (one "sub NAME {" a line, its body ending at the first line
    that is "}" alone, or on its own line), by name: its first and last lines."""
    lines = open(source).read().splitlines()
    subs = {}
    for i, ln in enumerate(lines, 1):
        m = re.match(r"sub (\w+) \{(.*)$", ln)
        if not m:
            continue
        last = i if m.group(2).rstrip().endswith("}") else \
            next(j for j in range(i + 1, len(lines) + 1) if lines[j - 1] == "}")
        subs[m.group(1)] = (i, last)
    return subs


# A Perl frame: NAME (FILE:LINE), FILE "(eval 12)" for a string eval's code.
PERL_FRAME = re.compile(r"(.+) \((.*):(\d+)\)")


def perl_frames(sample):
    """The Perl frames of sample, root first, as (name, file, line), main::'s names without
    their package."""
    frames = []
    for f in sample.frames:
        m = PERL_FRAME.fullmatch(f)
        if m and not f.endswith("_[k]"):
            name = m.group(1)
            frames.append((name[len("main::"):] if name.startswith("main::") else name,
                           m.group(2), int(m.group(3))))
    return frames


def perl_names(sample):
    """The Perl frames of sample, root first, by name, main::'s without their package."""
    return [name for name, _, _ in perl_frames(sample)]


def cmd_perl(args):
    """Perl frames of the known chains of plthreads.pl, each on its own thread, the sort BLOCK
    called back from C with the run loop's native frames between, burn's lines in its body."""
    expect = {
        "spin_alpha": ["alpha_main", "a1", "a2", "spin_alpha", "burn"],
        "spin_beta": ["beta_main", "b1", "spin_beta", "burn"],
        "spin_beta/rec": ["beta_main"] + ["rec"] * 7 + ["spin_beta", "burn"],
        "spin_key": ["RUNTIME", "sorter", "(sort)", "cmp_fn", "keyfn", "spin_key", "burn"],
    }
    first, last = perl_sub_lines(args.source)["burn"]
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    total = sum(s.count for s in samples)
    perl = sum(s.count for s in samples if s.python)
    tids = collections.defaultdict(collections.Counter)
    good, seen = collections.Counter(), collections.Counter()
    between = pp_sort = burned = in_body = 0
    for s in samples:
        names = perl_names(s)
        if names and names[-1] == "burn":
            m = PYTHON_FRAME.fullmatch(s.python[-1])
            burned += s.count
            if m.group(2) == (args.path or args.source) and first <= int(m.group(3) or 0) <= last:
                in_body += s.count
        for key in chains_seen(expect, names, s, seen, tids):
            good[key] += s.count if names == expect[key] else 0
            if key == "spin_key" and "(sort)" in names and "sorter" in names:
                # pp_sort (C) calls the BLOCK back through a run loop of its own
                i = next(k for k, f in enumerate(s.frames) if f.startswith("main::sorter ("))
                j = next(k for k, f in enumerate(s.frames) if f.startswith("(sort) ("))
                native = s.frames[i + 1:j]
                ok = len(native) >= 2 and "Perl_runops_standard" in native and \
                    not any(PYTHON_FRAME.fullmatch(f) for f in native)
                between += s.count if ok else 0
                pp_sort += s.count if "Perl_pp_sort" in native else 0
    print(f"{total} samples, {perl} with Perl frames", file=sys.stderr)
    ok = total >= args.min_samples and perl >= args.min_with_frames * total
    ok &= chains_on_threads(expect, seen, good, tids, args.min_ratio)
    share = between / seen["spin_key"] if seen["spin_key"] else 0
    print(f"  native frames (the run loop's) between sorter and the sort BLOCK: {share:.2%}"
          f" (Perl_pp_sort named in {pp_sort})", file=sys.stderr)
    ok &= share >= args.min_ratio
    share = in_body / burned if burned else 0
    print(f"  burn's line in {first}..{last} of {args.path or args.source}: {share:.2%} "
          f"of {burned}", file=sys.stderr)
    ok &= share >= args.min_ratio
    if not ok:
        show(samples, "top stacks:")
        fail("the Perl frames are not those of the threads' chains")


def cmd_perl_catch(args):
    """plcatch.pl's frames, each in its activation of the run loop: the main program's,
    the sort BLOCK's (pp_sort calls it back) and the one its eval {} runs cmp_eval in
    (docatch), one Perl_runops_standard before each of main::RUNTIME, (sort) and
    main::cmp_eval, and none between them."""
    expect = ["RUNTIME", "sorter", "(sort)", "cmp_eval", "leaf"]
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    seen = good = 0
    for s in samples:
        names = perl_names(s)
        if not names or names[-1] != "leaf":
            continue
        seen += s.count
        at = [i for i, f in enumerate(s.frames) if PYTHON_FRAME.fullmatch(f)]
        loops = [sum(f == "Perl_runops_standard" for f in s.frames[a + 1:b])
                 for a, b in zip([-1] + at, at)]
        good += s.count if names == expect and loops == [1, 0, 1, 1, 0] else 0
    share = good / seen if seen else 0
    print(f"  leaf: {seen} samples, {share:.2%} with the chain in its three activations",
          file=sys.stderr)
    if seen < args.min_samples or share < args.min_ratio:
        show([s for s in samples if "leaf" in perl_names(s)], "top stacks:")
        fail("the frames of an eval in a sort BLOCK are not in their activations")


def cmd_perl_evals(args):
    """plevals.pl's string eval, map and grep BLOCKs and require, each a frame: of the
    samples in leaf, those whose frames are the main program, via_eval, "(eval)" in a file
    "(eval N)" and leaf, or via_map, "(map)", map_leaf and leaf (grep's the same); of those
    in PlSpin.pm's code, the main program, via_require and "(require)" in its file; each at
    least --min-ratio of its samples."""
    expect = {
        "via_eval": ["RUNTIME", "via_eval", "(eval)", "leaf"],
        "via_map": ["RUNTIME", "via_map", "(map)", "map_leaf", "leaf"],
        "via_grep": ["RUNTIME", "via_grep", "(grep)", "grep_leaf", "leaf"],
        "via_require": ["RUNTIME", "via_require", "(require)"],
    }
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    seen, good = collections.Counter(), collections.Counter()
    for s in samples:
        frames = perl_frames(s)
        names = [n for n, _, _ in frames]
        key = "via_require" if frames and frames[-1][1].endswith("PlSpin.pm") else \
            next((k for k in expect if k in names), None) if names and names[-1] == "leaf" \
            else None
        if not key:
            continue
        seen[key] += s.count
        ok = names == expect[key]
        if key == "via_eval":
            ok = ok and re.fullmatch(r"\(eval \d+\)", frames[2][1])
        if key in ("via_map", "via_grep"):
            # the BLOCK's statement is its sub's: the same line
            ok = ok and frames[1][1:] == frames[2][1:]
        good[key] += s.count if ok else 0
    ok = True
    for key in expect:
        share = good[key] / seen[key] if seen[key] else 0
        print(f"  {key}: {seen[key]} samples, {share:.2%} with {';'.join(expect[key])}",
              file=sys.stderr)
        ok &= seen[key] >= args.min_samples and share >= args.min_ratio
    if not ok:
        show(samples, "top stacks:")
        fail("the frames of a string eval, a map, a grep or a require are not theirs")


def cmd_perl_chain(args):
    """Of the samples whose innermost Perl frame is the chain's last, at least --min-ratio
    have exactly the chain's Perl frames (";"-separated names, main::'s without it)."""
    chain = args.chain.split(";")
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    seen = sum(s.count for s in samples if perl_names(s)[-1:] == chain[-1:])
    good = sum(s.count for s in samples if perl_names(s) == chain)
    share = good / seen if seen else 0
    print(f"  {chain[-1]}: {seen} samples, {share:.2%} with {args.chain}", file=sys.stderr)
    if seen < args.min_samples or share < args.min_ratio:
        show(samples, "top stacks:")
        fail(f"the Perl frames of {args.comm} are not {args.chain}")


# A Java frame: "CLASS.METHOD (FILE.java:LINE)", its line when known, "_[i]" when inlined.
JAVA_FRAME = re.compile(r"(\S+) \(([^;()]*\.java)(?::(\d+))?\)(?:_\[i\])?")


def java_frames(sample):
    """The Java frames of sample, root first: (name, file, line; 0 when not known)."""
    return [(m.group(1), m.group(2), int(m.group(3) or 0))
            for m in map(JAVA_FRAME.fullmatch, sample.frames) if m]


def thread_name(sample):
    """The thread's own name (--tid), or its process's comm when it has none of its own."""
    m = re.fullmatch(r".*?-\d+/\d+ \((.*)\)", sample.line.split(";", 1)[0])
    return m.group(1) if m else sample.comm


def cmd_java_chain(args):
    """Each --chain THREAD=A;B;C: of the samples of the thread named THREAD (--tid), at least
    --min-ratio have exactly these Java frames, root first, and begin at the thread's root
    (--chain-re THREAD=REGEX: Java frames that REGEX matches whole, ";"-joined);
    each --lines METHOD=FIRST-LAST: the lines of METHOD's frames, when known, are in its body."""
    samples = read_folded(args.folded)
    root = re.compile("(?:" + THREAD + ")(?:;|$)")
    ok = True
    specs = [(spec, False) for spec in args.chain or []] + \
        [(spec, True) for spec in args.chain_re or []]
    for spec, is_re in specs:
        thread, chain = spec.split("=", 1)
        want = re.compile(chain if is_re else re.escape(chain))
        mine = [s for s in samples if thread_name(s) == thread and s.user]
        total = sum(s.count for s in mine)
        good = sum(s.count for s in mine
                   if want.fullmatch(";".join(f[0] for f in java_frames(s))) and
                   root.match(";".join(s.user)))
        share = good / total if total else 0
        print(f"  {thread}: {total} samples, {share:.2%} with {chain} from the "
              f"thread's root", file=sys.stderr)
        if total < args.min_samples or share < args.min_ratio:
            show(mine, f"top stacks of {thread}:")
            ok = False
    for spec in args.lines or []:
        method, span = spec.split("=", 1)
        first, last = map(int, span.split("-"))
        seen = collections.Counter()
        for s in samples:
            for name, _, line in java_frames(s):
                if name == method and line:
                    seen[first <= line <= last] += s.count
        inside = seen[True] / sum(seen.values()) if seen else 0
        print(f"  {method}: {sum(seen.values())} samples with a line, {inside:.2%} in lines "
              f"{first}-{last}", file=sys.stderr)
        ok &= bool(seen) and seen[False] == 0
    if not ok:
        fail("the Java frames are not the chains expected")


def jfr_stacks(path):
    """JFR's execution samples (jfr print --json): (thread, Java frames root first) each."""
    stacks = collections.Counter()
    for e in json.load(open(path))["recording"]["events"]:
        v = e["values"]
        frames = (v.get("stackTrace") or {}).get("frames") or []
        # A lambda's proxy, a hidden class JFR names its own way, has no file: unwprof's
        # frame of it is no Java frame of java_frames()'s either.
        names = tuple(f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"]
                      for f in reversed(frames) if "$$Lambda" not in f["method"]["type"]["name"])
        thread = (v.get("sampledThread") or {}).get("javaName")
        stacks[(thread, names)] += 1
    return stacks


def cmd_java_jfr(args):
    """Against JFR's execution samples of the same run: the methods' self shares agree within
    --max-diff points for every method with at least 5% of either's (unwprof's samples running
    Java code, whose leaf is a Java frame, as JFR samples threads in Java code only), and at
    least --min-ratio of JFR's samples have a stack whose Java frames are those of some stack
    of unwprof's, in the same order, on a thread of the same name."""
    theirs = jfr_stacks(args.jfr)
    ours = collections.Counter()
    chains = set()
    for s in read_folded(args.folded):
        names = tuple(f[0] for f in java_frames(s))
        if names:
            chains.add((thread_name(s), names))
        user = [f for f in s.frames if not f.endswith("_[k]")]
        if names and user and JAVA_FRAME.fullmatch(user[-1]):
            ours[names[-1]] += s.count
    self_theirs = collections.Counter()
    for (thread, names), n in theirs.items():
        if names:
            self_theirs[names[-1]] += n
    a, b = sum(ours.values()), sum(self_theirs.values())
    ok = a >= args.min_samples and b >= args.min_samples / 10
    for name in sorted(set(ours) | set(self_theirs)):
        x, y = ours[name] / a if a else 0, self_theirs[name] / b if b else 0
        if max(x, y) < 0.05:
            continue
        print(f"  {name}: unwprof {x:.2%} ({ours[name]}), JFR {y:.2%} ({self_theirs[name]})",
              file=sys.stderr)
        ok &= abs(x - y) <= args.max_diff
    found = sum(n for key, n in theirs.items() if key in chains)
    total = sum(theirs.values())
    share = found / total if total else 0
    print(f"  JFR's stacks found in unwprof's: {share:.2%} of its {total} samples", file=sys.stderr)
    for (thread, names), n in theirs.most_common(10):
        if (thread, names) not in chains:
            print(f"    not found: {n} {thread}: {';'.join(names)}", file=sys.stderr)
    if not ok or share < args.min_ratio:
        fail("unwprof's Java frames do not agree with JFR's")


def cmd_perl_shares(args):
    """The subs' exclusive shares of time agree with Devel::NYTProf's: each sub of --subs
    named by both, its share of their total within --max-diff points. unwprof's exclusive
    time of a sub: the samples whose innermost Perl frame is it (its native callees too)."""
    ours = collections.Counter()
    for s in read_folded(args.folded):
        names = perl_names(s)
        if comm_matches(s, args.comm) and names and names[-1] in args.subs:
            ours[names[-1]] += s.count
    theirs = collections.Counter()
    for ln in open(args.nytprof):
        name, excl = ln.rsplit(" ", 1)
        name = name[len("main::"):] if name.startswith("main::") else name
        if name in args.subs:
            theirs[name] += float(excl)
    a, b = sum(ours.values()), sum(theirs.values())
    ok = a >= args.min_samples and b > 0
    for name in args.subs:
        x, y = ours[name] / a if a else 0, theirs[name] / b if b else 0
        print(f"  {name}: unwprof {x:.2%} ({ours[name]} samples), NYTProf {y:.2%}",
              file=sys.stderr)
        ok &= abs(x - y) <= args.max_diff
    if not ok:
        fail(f"exclusive shares differ from NYTProf's by more than {args.max_diff:.0%} "
             f"(or {a} samples, fewer than {args.min_samples})")


def cmd_perl_pprof(args):
    """In pprof (go tool pprof -raw), the subs of the source are functions with its file,
    each location's line inside the sub."""
    subs = perl_sub_lines(args.source)
    raw = subprocess.run(["go", "tool", "pprof", "-raw", args.pprof], capture_output=True,
                         text=True, check=True).stdout
    seen, bad = collections.Counter(), []
    for m in re.finditer(r"^ +\d+: 0x[0-9a-f]+ M=\d+ main::(\w+) (.*):(\d+) s=\d+$", raw, re.M):
        name, path, line = m.group(1), m.group(2), int(m.group(3))
        if name not in subs:
            continue
        seen[name] += 1
        first, last = subs[name]
        if path != args.path or not first <= line <= last:
            bad.append(m.group(0).strip())
    print(f"pprof locations of the source's subs: {dict(seen)}", file=sys.stderr)
    if bad or len(seen) < args.min_functions:
        fail(f"{len(seen)} subs of the source named, expected {args.min_functions}; "
             f"not in their sub: {bad[:5]}")


def php_function_lines(source):
    """Each function, method and closure of a PHP source (one "function NAME(" a line, a
    method's name with its class's, a closure "{closure}"), its body ending at the first line
    that is its indent and "}" (a closure's "};"), by name: its first and last lines."""
    lines = open(source).read().splitlines()
    funcs, cls = {}, None
    for i, ln in enumerate(lines, 1):
        m = re.match(r"class (\w+)", ln)
        if m:
            cls = m.group(1)
        m = re.match(r"(\s*)(?:(?:public|private|protected|static) )*function (\w+)\(", ln) or \
            re.match(r"(\s*)\$\w+ = function ()\(", ln)
        if not m:
            continue
        indent, name = m.group(1), m.group(2)
        end = indent + ("}" if name else "};")
        if not name:
            name = "{closure}"
        elif indent and cls:
            name = f"{cls}::{name}"
        funcs[name] = (i, next(j for j in range(i + 1, len(lines) + 1) if lines[j - 1] == end))
    return funcs


def php_name(name):
    """A PHP frame's name, PHP 8.4's closures ("{closure:FILE:LINE}") as 8.2's."""
    return "{closure}" if name.startswith("{closure") else name


# A PHP frame: NAME (FILE:LINE), FILE "app.php(21) : eval()'d code" for an eval's code;
# NAME (FILE) when its line is not known (JIT code's).
PHP_FRAME = re.compile(r"(\S+) \((.*?)(?::(\d+))?\)")


def php_frames(sample):
    """The PHP frames of sample, root first, as (name, file, line)."""
    frames = []
    for f in sample.frames:
        m = PHP_FRAME.fullmatch(f)
        if m and not f.endswith("_[k]"):
            frames.append((php_name(m.group(1)), m.group(2), int(m.group(3) or 0)))
    return frames


def php_names(sample):
    return [name for name, _, _ in php_frames(sample)]


# phchain.php's chains, root first, by the function that calls burn.
PHP_CHAINS = {
    "c2": ["{main}", "c1", "c2", "burn"],
    "keyfn": ["{main}", "Sorter::run", "Sorter::cmp", "keyfn", "burn"],
    "{closure}": ["{main}", "mapper", "{closure}", "burn"],
}
# Where C code calls PHP back: the caller, the callee.
PHP_CALLBACKS = [("Sorter::run", "Sorter::cmp"), ("mapper", "{closure}")]


def cmd_php(args):
    """PHP frames of phchain.php's known chains: each whole, the callbacks of usort and
    array_map with the executor's C frames between caller and callee, burn's lines in its
    body."""
    first, last = php_function_lines(args.source)["burn"]
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    total = sum(s.count for s in samples)
    php = sum(s.count for s in samples if s.python)
    seen, good = collections.Counter(), collections.Counter()
    calls, between = collections.Counter(), collections.Counter()
    burned = in_body = 0
    for s in samples:
        frames = php_frames(s)
        names = [n for n, _, _ in frames]
        if len(names) >= 2 and names[-1] == "burn" and names[-2] in PHP_CHAINS:
            key = names[-2]
            seen[key] += s.count
            good[key] += s.count if names == PHP_CHAINS[key] else 0
            burned += s.count
            if frames[-1][1] == (args.path or args.source) and first <= frames[-1][2] <= last:
                in_body += s.count
        for caller, callee in PHP_CALLBACKS:
            if caller not in names or callee not in names:
                continue
            named = [php_name(PHP_FRAME.fullmatch(f).group(1))
                     if PHP_FRAME.fullmatch(f) else f for f in s.frames]
            i, j = named.index(caller), named.index(callee)
            native = s.frames[i + 1:j]
            calls[caller] += s.count
            ok = "zend_call_function" in native and "execute_ex" in native and \
                not any(PHP_FRAME.fullmatch(f) for f in native)
            between[caller] += s.count if ok else 0
    print(f"{total} samples, {php} with PHP frames", file=sys.stderr)
    ok = total >= args.min_samples and php >= args.min_with_frames * total
    for key, chain in PHP_CHAINS.items():
        share = good[key] / seen[key] if seen[key] else 0
        print(f"  {';'.join(chain)}: {seen[key]} samples, {share:.2%} whole", file=sys.stderr)
        ok &= seen[key] >= 20 and share >= args.min_ratio
    for caller, callee in PHP_CALLBACKS:
        share = between[caller] / calls[caller] if calls[caller] else 0
        print(f"  zend_call_function and execute_ex between {caller} and {callee}: "
              f"{share:.2%} of {calls[caller]}", file=sys.stderr)
        ok &= share >= args.min_ratio
    share = in_body / burned if burned else 0
    print(f"  burn's line in {first}..{last} of {args.path or args.source}: {share:.2%} "
          f"of {burned}", file=sys.stderr)
    ok &= share >= args.min_ratio
    if not ok:
        show(samples, "top stacks:")
        fail("the PHP frames are not those of phchain.php's chains")


def excimer_stacks(path, script):
    """excimer's collapsed stacks ("FRAME;...;FRAME COUNT", root first), named as unwprof
    names them: the script's own code (excimer names it by its file) "{main}", a closure
    "{closure}"."""
    stacks = collections.Counter()
    for ln in open(path):
        ln = ln.strip()
        if not ln:
            continue
        stack, count = ln.rsplit(" ", 1)
        names = ["{main}" if f == script else php_name(f) for f in stack.split(";") if f]
        stacks[tuple(names)] += int(count)
    return stacks


def cmd_php_chains(args):
    """Of the samples whose two innermost PHP frames are a chain's last two, at least
    --min-ratio have exactly the chain's PHP frames, for each --chain (";"-separated
    names)."""
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    ok = True
    for arg in args.chain:
        chain = arg.split(";")
        seen = sum(s.count for s in samples if php_names(s)[-2:] == chain[-2:])
        good = sum(s.count for s in samples if php_names(s) == chain)
        share = good / seen if seen else 0
        print(f"  {arg}: {seen} samples, {share:.2%} whole", file=sys.stderr)
        ok &= seen >= args.min_samples and share >= args.min_ratio
    if not ok:
        show(samples, "top stacks:")
        fail(f"the PHP frames of {args.comm} are not {args.chain}")


def cmd_php_excimer(args):
    """unwprof's PHP frames against excimer's, sampling the same run: the stacks of at least
    --min-ratio of excimer's samples appear among unwprof's (their functions in the same
    order), and each function's share of the innermost frames agrees within --max-diff."""
    theirs = excimer_stacks(args.excimer, args.path or args.source)
    ours = collections.Counter()
    for s in read_folded(args.folded):
        names = php_names(s)
        if comm_matches(s, args.comm) and names:
            ours[tuple(names)] += s.count
    a, b = sum(ours.values()), sum(theirs.values())
    found = sum(n for stack, n in theirs.items() if stack in ours)
    share = found / b if b else 0
    print(f"  excimer: {b} samples, {share:.2%} of them of a stack unwprof has "
          f"({a} samples with PHP frames)", file=sys.stderr)
    ok = a >= args.min_samples and b >= args.min_samples and share >= args.min_ratio
    top_ours, top_theirs = collections.Counter(), collections.Counter()
    for stack, n in ours.items():
        top_ours[stack[-1]] += n
    for stack, n in theirs.items():
        top_theirs[stack[-1]] += n
    for name in sorted(set(top_ours) | set(top_theirs)):
        x, y = top_ours[name] / a if a else 0, top_theirs[name] / b if b else 0
        if max(x, y) < 0.02:
            continue
        print(f"  {name}: unwprof {x:.2%}, excimer {y:.2%}", file=sys.stderr)
        ok &= abs(x - y) <= args.max_diff
    if not ok:
        fail(f"unwprof's PHP stacks differ from excimer's (their order, or the innermost "
             f"functions' shares by more than {args.max_diff:.0%})")


def cmd_php_pprof(args):
    """In pprof (go tool pprof -raw), the functions of the source are functions with its
    file, each location's line inside the function, or 0 (unknown: the frame's opline's line
    was not in its function, which the namer does not keep) in at most --max-unknown of the
    samples with the source's functions."""
    funcs = php_function_lines(args.source)
    raw = subprocess.run(["go", "tool", "pprof", "-raw", args.pprof], capture_output=True,
                         text=True, check=True).stdout
    seen, bad, unknown_locs = collections.Counter(), [], set()
    ours = set()
    for m in re.finditer(r"^ +(\d+): 0x[0-9a-f]+ M=\d+ (\S+) (.*):(\d+) s=\d+$", raw, re.M):
        loc, name, path, line = int(m.group(1)), php_name(m.group(2)), m.group(3), \
            int(m.group(4))
        if name not in funcs:
            continue
        seen[name] += 1
        ours.add(loc)
        first, last = funcs[name]
        if line == 0:
            unknown_locs.add(loc)
        if path != args.path or not (first <= line <= last or line == 0):
            bad.append(m.group(0).strip())
    total = unknown = 0
    for m in re.finditer(r"^ +(\d+) +\d+: ([\d ]+)$", raw, re.M):
        locs = {int(x) for x in m.group(2).split()}
        if locs & ours:
            total += int(m.group(1))
            unknown += int(m.group(1)) if locs & unknown_locs else 0
    print(f"pprof locations of the source's functions: {dict(seen)}, {len(unknown_locs)} of "
          f"them without a line, in {unknown} of {total} samples", file=sys.stderr)
    if not total or unknown > args.max_unknown * total:
        bad.append(f"{unknown} of {total} samples with a location without a line")
    if bad or len(seen) < args.min_functions:
        fail(f"{len(seen)} functions of the source named, expected {args.min_functions}; "
             f"not in their function: {bad[:5]}")


def v8_frames(sample, script):
    """The JavaScript frames of sample in file script (its basename), root first, as
    (name, line), and the index of each in the sample's frames; inlined ones too."""
    out = []
    for i, f in enumerate(sample.frames):
        # a function V8 inlined into its caller's compiled code: "NAME (FILE:LINE)_[i]"
        m = PYTHON_FRAME.fullmatch(f[:-4] if f.endswith("_[i]") else f)
        if m and os.path.basename(m.group(2)) == script:
            out.append((m.group(1), int(m.group(3) or 0), i))
    return out


def v8_function_lines(path):
    """The first and last line of each function declared in the JavaScript file at path, by
    its closing brace at the start of a line."""
    lines = {}
    name = None
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = re.match(r"function (\w+)\(", text)
            if m:
                name, first = m.group(1), n
            elif name and text.startswith("}"):
                lines[name] = (first, n)
                name = None
    return lines


V8_CHAINS = {
    "inner": ["(anonymous)", "main", "outer", "middle", "inner"],
    "byKey": ["(anonymous)", "main", "sorter", "byKey"],
}


def in_order(names, chain):
    """Whether names are chain's, in its order, some left out (inlined)."""
    it = iter(chain)
    return all(n in it for n in names)


def cmd_v8(args):
    """The JavaScript frames of tests/programs/chain.js on its main thread: in at least
    --min-ratio of the samples with frames of the file, they are one chain's, in order, each
    "NAME (FILE:LINE)" (with "_[i]" when V8 inlined it into its caller's code); each chain
    whole and in order in at least --min-ratio of the samples whose innermost frame of the
    file is the chain's last (at least --min-samples of them), the comparator byKey under the
    builtin sort's frame, each leaf's line, where it has one, in its function."""
    script = os.path.basename(args.source)
    lines = v8_function_lines(args.source)
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    total = sum(s.count for s in samples)
    with_js = [s for s in samples if v8_frames(s, script)]
    n_js = sum(s.count for s in with_js)
    ordered = sum(s.count for s in with_js
                  if any(in_order([n for n, _, _ in v8_frames(s, script)], c)
                         for c in V8_CHAINS.values()))
    print(f"  {args.comm}: {total} samples, {n_js} with frames of {script}, "
          f"{ordered / n_js if n_js else 0:.2%} of those one chain's in order", file=sys.stderr)
    if not total or n_js / total < 0.9 or ordered < args.min_ratio * n_js:
        show(samples, "top stacks:")
        fail(f"the frames of {script} on {args.comm} are not the chains'")
    for leaf, chain in V8_CHAINS.items():
        first, last = lines[leaf]
        seen = good = in_body = lined = 0
        for s in with_js:
            frames = v8_frames(s, script)
            if frames[-1][0] != leaf:
                continue
            seen += s.count
            if [n for n, _, _ in frames] != chain:
                continue
            if leaf == "byKey" and "sort" not in s.frames[frames[-2][2] + 1:frames[-1][2]]:
                continue
            good += s.count
            lined += s.count if frames[-1][1] else 0
            if first <= frames[-1][1] <= last:
                in_body += s.count
        share = good / seen if seen else 0
        # a line V8 cannot give (its script's line ends not computed yet) is none, not a
        # wrong one: the lines given must be the function's
        body = in_body / lined if lined else 1
        print(f"  {leaf}: {seen} samples, {share:.2%} with {';'.join(chain)}, "
              f"{lined} with a line, {body:.2%} of those at a line of {leaf} ({first}-{last})",
              file=sys.stderr)
        if seen < args.min_samples or share < args.min_ratio or body < args.min_ratio:
            show([s for s in samples if leaf in s.line], f"top stacks with {leaf}:")
            fail(f"the chain of {leaf} is not whole in {args.min_ratio:.0%} of its samples")


def cpuprofile_self(path, script, groups):
    """Of the samples of node --cpu-prof's profile at path that have a frame of script, the
    share whose leaf function is in each group."""
    with open(path) as f:
        prof = json.load(f)
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {}
    for n in prof["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]
    in_script = {}

    def has_script(i):
        if i not in in_script:
            frame = nodes[i]["callFrame"]
            in_script[i] = (os.path.basename(frame["url"]) == script or
                            (i in parent and has_script(parent[i])))
        return in_script[i]
    counts = collections.Counter()
    total = 0
    for i in prof["samples"]:
        if not has_script(i):
            continue
        total += 1
        name = nodes[i]["callFrame"]["functionName"]
        for g, names in groups.items():
            if name in names:
                counts[g] += 1
    return {g: counts[g] / total if total else 0 for g in groups}, total


def cmd_v8_cpuprof(args):
    """The self shares of chain.js's functions agree with node --cpu-prof's, recorded in the
    same run, within --points: of the samples with a frame of the file, those whose innermost
    frame of the file is in a group. Grouped as V8 inlines them, main, outer, middle and inner:
    V8's profiler charges much of an inlined function's time to the function it is inlined
    into (node 24: inner 27% against unwprof's 73%, the group the same); byKey."""
    script = os.path.basename(args.source)
    groups = {"main+outer+middle+inner": {"main", "outer", "middle", "inner"},
              "byKey": {"byKey"}}
    ref, ref_total = cpuprofile_self(args.cpuprofile, script, groups)
    samples = [s for s in read_folded(args.folded) if comm_matches(s, args.comm)]
    counts = collections.Counter()
    total = 0
    for s in samples:
        frames = v8_frames(s, script)
        if not frames:
            continue
        total += s.count
        for g, names in groups.items():
            if frames[-1][0] in names:
                counts[g] += s.count
    bad = []
    for g in groups:
        ours = counts[g] / total if total else 0
        print(f"  {g}: unwprof {ours:.1%} of {total}, --cpu-prof {ref[g]:.1%} of {ref_total}",
              file=sys.stderr)
        if abs(ours - ref[g]) * 100 > args.points:
            bad.append(g)
    if bad or not total or not ref_total:
        fail(f"self shares differ from node --cpu-prof's by more than {args.points} points: "
             f"{', '.join(bad) or 'no samples'}")


def cmd_python_cold(args):
    """The .cold part of a stripped eval loop that dump-unwind found in .eh_frame is one FDE
    (readelf -wf), named by no symbol, whose code jumps into the loop (objdump -d)."""
    py = json.load(open(args.json))["python"]
    if py.get("cold_from") != ".eh_frame" or len(py["eval_frame"]) != 2:
        fail(f"no .cold part from .eh_frame: {py.get('eval_frame')}, {py.get('cold_from')}")
    (elo, ehi), (clo, chi) = [(int(a, 16), int(b, 16)) for a, b in py["eval_frame"]]
    frames = subprocess.run(["readelf", "-wf", args.elf], capture_output=True, text=True,
                            check=True).stdout
    fdes = {(int(a, 16), int(b, 16))
            for a, b in re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", frames)}
    if (clo, chi) not in fdes:
        fail(f".cold {clo:#x}-{chi:#x} is not an FDE's range")
    syms = subprocess.run(["readelf", "-Ws", "--dyn-syms", args.elf], capture_output=True,
                          text=True, check=True).stdout
    inside = [ln.split()[7] for ln in syms.splitlines()
              if len(ln.split()) >= 8 and ln.split()[3] == "FUNC"
              and clo <= int(ln.split()[1], 16) < chi]
    if inside:
        fail(f".cold {clo:#x}-{chi:#x} holds functions: {inside[:5]}")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={clo:#x}",
                          f"--stop-address={chi:#x}", args.elf], capture_output=True, text=True,
                         check=True).stdout
    jumps = sum(1 for m in re.finditer(r"\sj[a-z]+\s+([0-9a-f]+)", dis)
                if elo <= int(m.group(1), 16) < ehi)
    print(f".cold {clo:#x}-{chi:#x}: an FDE, no symbol in it, {jumps} jumps into "
          f"_PyEval_EvalFrameDefault (objdump)", file=sys.stderr)
    if jumps < 16:
        fail(f".cold {clo:#x}-{chi:#x}: only {jumps} jumps into the eval loop")


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
    s.add_argument("--through", help="only the samples with a frame this regex matches whole")
    s.add_argument("--never")
    s.add_argument("--inlined", action="store_true")
    s.set_defaults(fn=cmd_stacks)
    s = sub.add_parser("deep")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--leaf", required=True)
    s.add_argument("--frame", required=True)
    s.add_argument("--min-frames", type=int, required=True)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_deep)
    s = sub.add_parser("elided")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--leaf", required=True)
    s.add_argument("--frame", required=True)
    s.add_argument("--frames", type=int, required=True)
    s.add_argument("--root", default="{START};main")
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_elided)
    s = sub.add_parser("budget")
    s.add_argument("json")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--frames", type=int, required=True)
    s.add_argument("--frame", default="descend")
    s.add_argument("--leaf", default="bottom")
    s.add_argument("--root", default="{START};main")
    s.add_argument("--budget", type=int, required=True)
    s.set_defaults(fn=cmd_budget)
    s = sub.add_parser("exec")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--old", required=True)
    s.add_argument("--min-samples", type=int, default=20)
    s.set_defaults(fn=cmd_exec)
    s = sub.add_parser("summary")
    s.add_argument("stderr")
    s.add_argument("field")
    s.add_argument("--min", type=int, default=1)
    s.add_argument("--max", type=int)
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
    s = sub.add_parser("stats")
    s.add_argument("json")
    s.add_argument("--min-walked", type=float, default=0)
    s.add_argument("--min-bottom", type=float, default=0)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_stats)
    s = sub.add_parser("roots")
    s.add_argument("folded")
    s.add_argument("--comm")
    s.add_argument("--root", action="append")
    s.add_argument("--min-ratio", type=float, required=True)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_roots)
    s = sub.add_parser("jit-named")
    s.add_argument("folded")
    s.add_argument("map")
    s.add_argument("--comm", required=True)
    s.add_argument("--min-ratio", type=float, required=True)
    s.add_argument("--min-samples", type=int, default=100)
    s.add_argument("--expect-leaf")
    s.set_defaults(fn=cmd_jit_named)
    s = sub.add_parser("jit-unnamed")
    s.add_argument("folded")
    s.add_argument("map")
    s.add_argument("--comm", required=True)
    s.add_argument("--max-ratio", type=float, required=True)
    s.add_argument("--min-named", type=int, default=100)
    s.add_argument("--named-re", help="a frame named by the runtime itself (V8's), as named too")
    s.set_defaults(fn=cmd_jit_unnamed)
    s = sub.add_parser("fde-starts")
    s.add_argument("folded")
    s.add_argument("elf")
    s.add_argument("--comm", required=True)
    s.add_argument("--min-ratio", type=float, default=0.99)
    s.add_argument("--min-frames", type=int, default=100)
    s.set_defaults(fn=cmd_fde_starts)
    s = sub.add_parser("perf")
    s.add_argument("folded")
    s.add_argument("--freq", type=int, default=999)
    s.add_argument("--timeout", type=float, default=60)
    s.add_argument("command", nargs="+")
    s.set_defaults(fn=cmd_perf)
    s = sub.add_parser("compare")
    s.add_argument("folded")
    s.add_argument("reference")
    s.add_argument("--comm")
    s.add_argument("--depth", type=int, default=1)
    s.add_argument("--min-share", type=float, default=0.02)
    s.add_argument("--min-other", type=float, help="default: half of --min-share")
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_compare)
    s = sub.add_parser("addr2line")
    s.add_argument("pprof")
    s.add_argument("file")
    s.add_argument("elf")
    s.add_argument("--min-leaves", type=int, default=3)
    s.set_defaults(fn=cmd_addr2line)
    s = sub.add_parser("go-symbols")
    s.add_argument("folded")
    s.add_argument("elf")
    s.add_argument("funcs")
    s.add_argument("out")
    s.set_defaults(fn=cmd_go_symbols)
    s = sub.add_parser("python")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.add_argument("--qualname", action="store_true")
    s.add_argument("--source", help="pythreads.py: burn's lines must lie in its body")
    s.add_argument("--min-python", type=float, default=0.9,
                   help="the share of the samples with Python frames")
    s.set_defaults(fn=cmd_python)
    s = sub.add_parser("python-short")
    s.add_argument("folded")
    s.add_argument("--min-samples", type=int, default=5)
    s.set_defaults(fn=cmd_python_short)
    s = sub.add_parser("python-deep")
    s.add_argument("folded")
    s.add_argument("--function", required=True)
    s.add_argument("--frames", type=int, required=True)
    s.add_argument("--min-samples", type=int, default=50)
    s.set_defaults(fn=cmd_python_deep)
    s = sub.add_parser("ruby")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--path", help="the source's path in the frames (another root's)")
    s.add_argument("--min-with-frames", type=float, default=0.9)
    s.add_argument("--min-line-ratio", type=float, default=0.95)
    s.add_argument("--min-jit", type=float, default=0)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_ruby)
    s = sub.add_parser("ruby-runtime")
    s.add_argument("json")
    s.add_argument("elf")
    s.set_defaults(fn=cmd_ruby_runtime)
    s = sub.add_parser("ruby-tls")
    s.add_argument("json")
    s.add_argument("elf")
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--printed", required=True)
    s.add_argument("--thread-ptr", type=int, default=48)  # rb_execution_context_t.thread_ptr
    s.add_argument("--self-off", type=int, default=16)  # rb_thread_t.self
    s.set_defaults(fn=cmd_ruby_tls)
    s = sub.add_parser("ruby-pprof")
    s.add_argument("pprof")
    s.add_argument("--source", required=True)
    s.add_argument("--path", required=True)
    s.add_argument("--min-functions", type=int, default=8)
    s.set_defaults(fn=cmd_ruby_pprof)
    s = sub.add_parser("perl")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--path", help="the source's path in the frames (another root's)")
    s.add_argument("--min-with-frames", type=float, default=0.9)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_perl)
    s = sub.add_parser("perl-catch")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_perl_catch)
    s = sub.add_parser("perl-evals")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_perl_evals)
    s = sub.add_parser("perl-chain")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--chain", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_perl_chain)
    s = sub.add_parser("java-chain")
    s.add_argument("folded")
    s.add_argument("--chain", action="append", help="THREAD=A;B;C")
    s.add_argument("--chain-re", action="append", help="THREAD=REGEX")
    s.add_argument("--lines", action="append", help="METHOD=FIRST-LAST")
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_java_chain)
    s = sub.add_parser("java-jfr")
    s.add_argument("folded")
    s.add_argument("jfr", help="jfr print --json --events jdk.ExecutionSample")
    s.add_argument("--max-diff", type=float, default=0.05)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=1000)
    s.set_defaults(fn=cmd_java_jfr)
    s = sub.add_parser("v8")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_v8)
    s = sub.add_parser("v8-cpuprof")
    s.add_argument("folded")
    s.add_argument("cpuprofile")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--points", type=float, default=5)
    s.set_defaults(fn=cmd_v8_cpuprof)
    s = sub.add_parser("perl-shares")
    s.add_argument("folded")
    s.add_argument("nytprof", help="lines \"SUB EXCLUSIVE_SECONDS\"")
    s.add_argument("--comm", required=True)
    s.add_argument("--subs", nargs="+", required=True)
    s.add_argument("--max-diff", type=float, default=0.05)
    s.add_argument("--min-samples", type=int, default=300)
    s.set_defaults(fn=cmd_perl_shares)
    s = sub.add_parser("perl-pprof")
    s.add_argument("pprof")
    s.add_argument("--source", required=True)
    s.add_argument("--path", required=True)
    s.add_argument("--min-functions", type=int, default=5)
    s.set_defaults(fn=cmd_perl_pprof)
    s = sub.add_parser("php")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--path", help="the source's path in the frames (another root's)")
    s.add_argument("--min-with-frames", type=float, default=0.9)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_php)
    s = sub.add_parser("php-chains")
    s.add_argument("folded")
    s.add_argument("--comm", required=True)
    s.add_argument("--chain", action="append", required=True)
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--min-samples", type=int, default=100)
    s.set_defaults(fn=cmd_php_chains)
    s = sub.add_parser("php-excimer")
    s.add_argument("folded")
    s.add_argument("excimer", help="excimer's stacks, formatCollapsed()")
    s.add_argument("--comm", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--path", help="the source's path in the frames (another root's)")
    s.add_argument("--min-ratio", type=float, default=0.95)
    s.add_argument("--max-diff", type=float, default=0.05)
    s.add_argument("--min-samples", type=int, default=200)
    s.set_defaults(fn=cmd_php_excimer)
    s = sub.add_parser("php-pprof")
    s.add_argument("pprof")
    s.add_argument("--source", required=True)
    s.add_argument("--path", required=True)
    s.add_argument("--min-functions", type=int, default=5)
    s.add_argument("--max-unknown", type=float, default=0.02)
    s.set_defaults(fn=cmd_php_pprof)
    s = sub.add_parser("python-cold")
    s.add_argument("json")
    s.add_argument("elf")
    s.set_defaults(fn=cmd_python_cold)
    s = sub.add_parser("go-switch")
    s.add_argument("json")
    s.add_argument("funcs")
    s.add_argument("dwarf")
    s.set_defaults(fn=cmd_go_switch)
    s = sub.add_parser("go-vdso")
    s.add_argument("json")
    s.add_argument("nm")
    s.add_argument("dwarf")
    s.set_defaults(fn=cmd_go_vdso)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()

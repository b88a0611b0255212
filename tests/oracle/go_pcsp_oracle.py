#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the rows unwprof makes of Go's SP deltas (.gopclntab) against GNU readelf.

usage: go_pcsp_oracle.py UNWPROF GOASM_DIR GOCACHE

Builds tests/programs/goasm (Go code, its own assembly leaf, crypto/sha256's)
twice with `go build`: as Go builds it, with the .debug_frame Go's linker
writes from the same SP deltas, and stripped (-ldflags='-s -w'), with the
pclntab alone. Then:

- For every address where `readelf --debug-dump=frames-interp` starts a row
  of the plain build, unwprof's row there (`dump-unwind --json`) gives the
  same CFA, and its return address is at CFA-8, except in Go's functions
  that switch stacks, whose rows are unsupported (go-sp-write: Go's
  traceback stops there too), and in its top frames, whose return address is
  undefined (the walk ends there). Two independent readers of two encodings
  of one table, Go's linker's CFI and its pclntab.
- The functions of those two kinds, named by `go tool nm`, are the ones Go's
  sources flag: runtime.goexit, runtime.mstart and runtime.rt0_go (TOPFRAME)
  among the top frames (with the entry points _rt0_*, which the kernel starts); runtime.mcall, runtime.systemstack, runtime.morestack
  and gogo (runtime.gogo's body; SPWRITE) among the switches.
- Go's signal restorer (runtime.sigreturn, runtime.sigreturn__sigaction
  from Go 1.21), alone of all functions, has the kernel's signal frame for
  its row, from the padding byte before it, as glibc's __restore_rt has it
  (tests/unit/test_unwind_table.c); Go's CFI describes it as a function that was
  called. Its handler, runtime.sigtramp, is not a top frame: it returns there.
- The stripped build has the same rows as the plain one, .gopclntab its only
  source, and no Go function refused.

Exit status: 0 when all agree, 1 on a disagreement, 77 (skip) when go or
readelf is missing or the machine is not amd64.
"""

import bisect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = {"runtime.goexit", "runtime.mstart", "runtime.rt0_go"}
# gogo<> is the body of runtime.gogo, which jumps to it: `go tool nm` names it "gogo".
SWITCH = {"runtime.mcall", "runtime.systemstack", "runtime.morestack", "gogo"}
RESTORER = {"runtime.sigreturn", "runtime.sigreturn__sigaction"}
# the x86_64 kernel's signal frame at rsp: the interrupted rsp, rbp and rip in its ucontext
SIGNAL_ROW = {"cfa": "signal:*(rsp+160)", "fp": "*(rsp+120)", "ra": "*(rsp+168)"}
RE_FDE = re.compile(r"FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)")
RE_ROW = re.compile(r"^([0-9a-f]{8,}) +(\S+) +(\S+)")


def skip(why):
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:2000]}")
    return p.stdout


def build(src, out, cache, flags):
    env = dict(os.environ, GOCACHE=cache, GO111MODULE="on", GOFLAGS="", GOTOOLCHAIN="local",
               GOPROXY="off", CGO_ENABLED="0")
    run(["go", "build"] + flags + ["-o", out, "."], cwd=src, env=env)


def readelf_rows(path):
    """(loc, cfa, ra) of every row readelf interprets in .debug_frame."""
    rows = []
    for line in run(["readelf", "--debug-dump=frames-interp", path]).splitlines():
        if RE_FDE.search(line):
            continue
        m = RE_ROW.match(line)
        if m and int(m.group(1), 16):
            rows.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return rows


def go_funcs(path):
    """Sorted (addr, name) of the text symbols `go tool nm` lists."""
    funcs = []
    for line in run(["go", "tool", "nm", "-sort", "address", path]).splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in "Tt":
            funcs.append((int(f[0], 16), re.sub(r"\.abi0$", "", f[2])))
    return funcs


class Table:
    """unwprof's rows of a file, looked up by address."""

    def __init__(self, unwprof, path):
        self.doc = json.loads(run([unwprof, "dump-unwind", "--json", "--no-debuginfo", path]))
        self.rows = self.doc["rows"]
        self.pcs = [int(r["pc"], 16) for r in self.rows]

    def at(self, pc):
        i = bisect.bisect_right(self.pcs, pc) - 1
        return self.rows[i] if i >= 0 else None


def func_at(funcs, pc):
    i = bisect.bisect_right(funcs, (pc, "\uffff")) - 1
    return funcs[i][1] if i >= 0 else "?"


def compare(table, elf_rows, funcs):
    """Disagreements of table with readelf's rows; the top, switching and signal functions."""
    bad, tops, switches, signals = [], set(), set(), set()
    for loc, cfa, ra in elf_rows:
        row, name = table.at(loc), func_at(funcs, loc)
        if row is None or row["cfa"] == "end":
            bad.append(f"{loc:#x} ({name}): readelf {cfa}, unwprof none")
        elif row["cfa"] == "unsupported:go-sp-write":
            switches.add(name)
        elif row["cfa"].startswith("signal:"):
            signals.add(name)
            if {k: row[k] for k in SIGNAL_ROW} != SIGNAL_ROW:
                bad.append(f"{loc:#x} ({name}): the signal frame's row is {row}")
        elif row["cfa"] != cfa:
            bad.append(f"{loc:#x} ({name}): readelf CFA {cfa}, unwprof {row['cfa']}")
        elif row["ra"] == "undefined":
            tops.add(name)
        elif ra != "c-8" or row["ra"] != "cfa-8":
            bad.append(f"{loc:#x} ({name}): readelf ra {ra}, unwprof {row['ra']}")
    return bad, tops, switches, signals


def check_restorer(table, funcs, signals, tops):
    """The restorer's row starts at the padding byte before it; nothing else has one."""
    if len(signals) != 1 or not signals <= RESTORER:
        return [f"functions with a signal frame's row: {sorted(signals)}, expected one of "
                f"{sorted(RESTORER)}"]
    entry = next(a for a, n in funcs if n in signals)
    row = table.at(entry - 1)
    if row is None or row["cfa"] != SIGNAL_ROW["cfa"] or int(row["pc"], 16) != entry - 1:
        return [f"{entry - 1:#x}, the byte before {sorted(signals)[0]}: row {row}"]
    if "runtime.sigtramp" in tops:
        return ["runtime.sigtramp is a top frame: its restorer's signal frame is not reached"]
    return []


def check_kinds(tops, switches):
    bad = []
    if not TOP <= tops:
        bad.append(f"top frames {sorted(tops)} lack {sorted(TOP - tops)}")
    if not SWITCH <= switches:
        bad.append(f"stack switches {sorted(switches)} lack {sorted(SWITCH - switches)}")
    unknown = {n for n in tops | switches - {"gogo"}
               if not n.startswith(("runtime.", "time.", "syscall.", "_rt0_"))}
    if unknown:
        bad.append(f"functions outside the runtime flagged: {sorted(unknown)}")
    return bad


def check_stripped(plain, stripped):
    bad = []
    if stripped.rows != plain.rows:
        n = sum(a != b for a, b in zip(stripped.rows, plain.rows))
        bad.append(f"stripped: {len(stripped.rows)} rows, plain {len(plain.rows)}, "
                   f"{n} differ")
    if stripped.doc["sources"] != [".gopclntab"]:
        bad.append(f"stripped: sources {stripped.doc['sources']}")
    refused = stripped.doc.get("go_funcs", {}).get("refused")
    if refused != {}:
        bad.append(f"stripped: Go functions refused: {refused}")
    return bad


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    unwprof, src, cache = (os.path.abspath(a) for a in sys.argv[1:])
    for tool in ("go", "readelf"):
        if not shutil.which(tool):
            skip(f"{tool} is not installed")
    if run(["go", "env", "GOARCH"]).strip() != "amd64":
        skip("the rows of Go's SP deltas are made for amd64")
    with tempfile.TemporaryDirectory() as tmp:
        plain, stripped = os.path.join(tmp, "goasm"), os.path.join(tmp, "goasm-stripped")
        build(src, plain, cache, [])
        build(src, stripped, cache, ["-ldflags=-s -w"])
        elf_rows, funcs = readelf_rows(plain), go_funcs(plain)
        t_plain, t_stripped = Table(unwprof, plain), Table(unwprof, stripped)
    bad, tops, switches, signals = compare(t_plain, elf_rows, funcs)
    print(f"{len(elf_rows)} rows of readelf against unwprof's {len(t_plain.rows)}; "
          f"top frames {sorted(tops)}; {len(switches)} stack switches; signal frames "
          f"{sorted(signals)}", file=sys.stderr)
    bad += check_kinds(tops, switches) + check_stripped(t_plain, t_stripped)
    bad += check_restorer(t_plain, funcs, signals, tops)
    for b in bad[:40]:
        print(f"  {b}", file=sys.stderr)
    if bad:
        print(f"FAIL: {len(bad)} disagreements", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

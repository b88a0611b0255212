#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare the rows unwprof derives from x86-64 code with the CFI of the same code.

usage: code_x64_oracle.py [--min-coverage PCT] [--objdump PATH] [--strip] UNWPROF FILE

FILE has CFI (a musl built with -fasynchronous-unwind-tables, setup.sh's
install_musl_cfi). `unwprof dump-unwind --json --from-code FILE` derives its
rows from the code alone, the CFI ignored; `unwprof dump-unwind --json FILE`
gives the rows of the CFI. At every instruction boundary `objdump -d` prints
where an FDE governs, the CFA rule derived from the code, where there is one,
must be the CFI's. Prints the share of those instructions (and of their
bytes) that the code's rows cover and how many differ (with the first ones);
the frame pointer rules are compared too, as information: gcc's CFI keeps
rbp's save slot after the pop that restores it, where the code's rows say
"unchanged", both right.

With --strip, a copy of FILE without .symtab (`strip --strip-all`, as Debian
ships its libc.so) is compared: its functions start at the symbols of
.dynsym, the entry and the targets of calls only.

Exit status: 0 when no CFA rule differs and the rows cover at least PCT% of
the bytes (default 90), 1 otherwise, 2 when a tool fails, 77 (skip) when FILE
does not exist (a failure when CI is set).
"""

import argparse
import bisect
import json
import os
import re
import subprocess
import sys
import tempfile

RE_INSN = re.compile(r"^\s*([0-9a-f]+):\t")
RE_FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write(f"{' '.join(cmd)}: {e}\n{getattr(e, 'stderr', '') or ''}")
        sys.exit(2)


class Table:
    def __init__(self, doc):
        self.rows = doc["rows"]
        self.pcs = [int(r["pc"], 16) for r in self.rows]
        code = doc.get("code") or {}
        self.code = code
        self.ranges = sorted((int(lo, 16), int(hi, 16)) for lo, hi in code.get("ranges", []))
        self.starts = [r[0] for r in self.ranges]

    def lookup(self, addr):
        i = bisect.bisect_right(self.pcs, addr) - 1
        if i < 0 or self.rows[i].get("end"):
            return None
        return self.rows[i]

    def from_code(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        return i >= 0 and addr < self.ranges[i][1]


def instructions(objdump, path):
    """[(address, length, function)] of every instruction objdump prints."""
    out, func = [], "?"
    prev = None
    for line in run([objdump, "-d", "-w", "--no-show-raw-insn", path]).splitlines():
        m = RE_FUNC.match(line)
        if m:
            func = m.group(2)
            prev = None
            continue
        m = RE_INSN.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if prev is not None and out and out[-1][0] == prev:
            out[-1] = (prev, addr - prev, out[-1][2])
        out.append((addr, 1, func))
        prev = addr
    return out


def cfa_of(row, addr):
    """The CFA rule of a row; a PLT's ("plt": rsp+8, past byte 11 of a 16-byte entry rsp+16) as rsp+N."""
    if row["cfa"] == "plt":
        return "rsp+16" if (addr & 15) >= 11 else "rsp+8"
    return row["cfa"]


def dump(unwprof, path, *extra):
    return Table(json.loads(run([unwprof, "dump-unwind", "--json", "--no-debuginfo", *extra, path])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-coverage", type=float, default=90.0)
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--max-list", type=int, default=20)
    ap.add_argument("--strip", action="store_true")
    ap.add_argument("unwprof")
    ap.add_argument("file")
    args = ap.parse_args()
    if not os.path.exists(args.file):
        print(f"SKIP: {args.file} does not exist (setup.sh builds it)")
        return 1 if os.environ.get("CI") else 77
    if args.strip:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, os.path.basename(args.file))
            run(["strip", "--strip-all", "-o", copy, args.file])
            return compare(args, copy)
    return compare(args, args.file)


def compare(args, path):
    cfi = dump(args.unwprof, path)
    code = dump(args.unwprof, path, "--from-code")
    insns = bytes_ = covered = covered_bytes = 0
    differ, fp_differ = [], 0
    for addr, length, func in instructions(args.objdump, path):
        want = cfi.lookup(addr)
        if want is None or cfi.from_code(addr) or want["cfa"].startswith("unsupported"):
            continue
        insns += 1
        bytes_ += length
        got = code.lookup(addr)
        if got is None:
            continue
        covered += 1
        covered_bytes += length
        if cfa_of(want, addr) != got["cfa"]:
            differ.append(f"{addr:#x} in {func}: CFI {want['cfa']}, code {got['cfa']}")
        elif got["fp"] != want["fp"]:
            fp_differ += 1
    if not insns:
        print(f"FAIL: {args.file}: no instruction has CFI")
        return 1
    share = 100.0 * covered_bytes / bytes_
    print(f"{args.file}: {insns} instructions ({bytes_} bytes) with CFI; "
          f"rows from code at {covered} ({100.0 * covered / insns:.1f}%), "
          f"{covered_bytes} bytes ({share:.1f}%); "
          f"CFA differs at {len(differ)} ({100.0 * len(differ) / insns:.2f}%); "
          f"frame pointer rule differs at {fp_differ}; "
          f"functions from code {code.code.get('functions', 0)}, "
          f"refused {code.code.get('refused', 0)}")
    for d in differ[:args.max_list]:
        print(f"  {d}")
    if differ:
        print(f"FAIL: the CFA rule derived from the code differs from the CFI at {len(differ)} instructions")
        return 1
    if share < args.min_coverage:
        print(f"FAIL: the rows from code cover {share:.1f}% of the bytes, less than {args.min_coverage}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

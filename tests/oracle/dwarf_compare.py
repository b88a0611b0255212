#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare `unwprof dump-unwind --json` with libdwarf's reading of the same CFI.

usage: dwarf_compare.py [--max-list N] UNWPROF DWARF_ORACLE FILE

DWARF_ORACLE is the dwarf_oracle program built next to this script: it prints
every FDE of .eh_frame and .debug_frame with libdwarf's rules in unwprof's rule
text. For each row libdwarf starts, and for the last address of each FDE, the
unwprof row governing the address must give the same rules; .debug_frame FDEs
count only where no .eh_frame FDE describes the address (unwprof prefers
.eh_frame), and only when unwprof says it read .debug_frame. Every gap between
FDEs must be an `end` row.

Exit status: 0 when every supported rule agrees, 1 on a disagreement, 2 when a
tool fails, 77 (skip) when FILE does not exist or is not x86_64.
"""

import argparse
import json
import os
import sys

from readelf_oracle import (S32_MAX, S32_MIN, UNSUPPORTED, Coverage, Oracle, Table, canon_unwprof, check_coverage,
                            merge_spans, run, unsup)


class Fde:
    def __init__(self, section, start, end):
        self.section = section
        self.off = start
        self.start = start
        self.end = end
        self.rows = []		# [(pc, cfa, fp, ra)] as libdwarf gives them
        self.errors = []


def parse(text):
    fdes = []
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "fde" and len(f) == 4:
            fdes.append(Fde(f[1], int(f[2], 16), int(f[3], 16)))
        elif fdes and len(f) >= 2 and f[1] == "error":
            fdes[-1].errors.append(line)
        elif fdes and len(f) == 4:
            fdes[-1].rows.append((int(f[0], 16), f[1], f[2], f[3]))
    return fdes


def fits_s32(v):
    return S32_MIN <= v <= S32_MAX


def expect(kind, text):
    """dwarf_oracle's rule text to an expected rule, with the row's range limits applied."""
    if text.startswith(UNSUPPORTED + ":"):
        return unsup(text.split(":", 1)[1])
    if kind == "fp" and text == "undefined":
        # An explicit DW_CFA_undefined rbp: no caller value. unwprof may keep it or refuse.
        return ("either", (("unchanged",), unsup("fp-rule")))
    rule = canon_unwprof(kind, text)
    if kind == "fp" and rule[0] in ("cfa", "atfp") and not fits_s32(rule[1]):
        return unsup("fp-offset")
    if kind == "cfa" and rule[0] == "deref" and not fits_s32(rule[3]):
        return unsup("cfa-offset", "cfa-expression")
    return rule


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-list", type=int, default=20)
    ap.add_argument("unwprof")
    ap.add_argument("oracle")
    ap.add_argument("file")
    args = ap.parse_args()

    if not os.path.exists(args.file):
        print(f"dwarf_compare: {args.file} does not exist, skipping")
        return 77

    doc = json.loads(run([args.unwprof, "dump-unwind", "--json", "--no-debuginfo",
                          args.file]))
    if doc.get("arch") != "x86_64":
        print(f"dwarf_compare: {args.file} is {doc.get('arch')}, only x86_64 is compared")
        return 77
    table = Table(doc)
    sources = doc.get("sources", [])
    fdes = [f for f in parse(run([args.oracle, "--eh-frame", "--debug-frame", args.file]))
            if f.end > f.start]
    eh = [f for f in fdes if f.section == ".eh_frame"]
    dbg = [f for f in fdes if f.section == ".debug_frame" and ".debug_frame" in sources]
    eh_cov, dbg_cov = Coverage(eh), Coverage(dbg)

    oracle = Oracle(table, "libdwarf")
    skipped = 0
    errors = [e for f in fdes for e in f.errors]
    for group, own, other in ((eh, eh_cov, None), (dbg, dbg_cov, eh_cov)):
        for f in group:
            if not f.rows:
                continue
            checks = list(f.rows) + [(f.end - 1,) + f.rows[-1][1:]]
            for pc, cfa, fp, ra in checks:
                if not f.start <= pc < f.end:
                    continue
                if own.covers_twice(pc) or (other and other.covers(pc)):
                    skipped += 1
                    continue
                exp = (expect("cfa", cfa), expect("fp", fp), expect("ra", ra))
                oracle.check(pc, f, exp, f"cfa={cfa} fp={fp} ra={ra}")
    check_coverage(oracle, merge_spans(eh + dbg))

    name = os.path.basename(args.file)
    print(f"{name}: libdwarf {len(eh)} .eh_frame + {len(dbg)} .debug_frame FDEs, "
          f"unwprof {doc.get('fdes')} FDEs, {len(table.rows)} rows, "
          f"sources {','.join(sources)}")
    print(f"{name}: {oracle.compared} rows compared, {oracle.agree} agree, "
          f"{len(oracle.disagree)} disagree, {oracle.gaps} gaps checked, "
          f"{skipped} addresses skipped (covered by two FDEs), "
          f"{len(errors)} rows libdwarf could not compute")
    unsup_txt = ", ".join(f"{k}: {v}" for k, v in sorted(oracle.unsupported.items())) or "none"
    print(f"{name}: unsupported rules (agreeing with libdwarf): {unsup_txt}")
    for line in oracle.disagree[:args.max_list]:
        print(f"DISAGREE {line}")
    if len(oracle.disagree) > args.max_list:
        print(f"... and {len(oracle.disagree) - args.max_list} more disagreements")
    for line in errors[:args.max_list]:
        print(f"LIBDWARF {line}")
    return 1 if oracle.disagree else 0


if __name__ == "__main__":
    sys.exit(main())

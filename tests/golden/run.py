#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Golden tests of `unwprof dump-unwind` on the fixtures of tests/fixtures/bin.

Usage: run.py UNWPROF FIXTURES_BIN_DIR EXPECTED_DIR [CASE...]
       run.py --cases-are CASE...

Runs each case (all of them when none is named), and compares its output with
EXPECTED_DIR/CASE.json or CASE.txt using `diff -u`. Exit 0 when all match,
1 otherwise.

JSON output is checked to parse, then rewritten one row per line so a diff
shows exactly the rows that changed. Cases named *-raw keep the bytes as
printed, to pin the exact format of the writer. For the static fixtures only
the rows of chain.c's own functions are kept: their address ranges come from
`nm -S`, and the thousands of glibc rows stay out of the golden.

The command runs with the fixture directory as its working directory and the
file named without a directory, so "file" in the output does not depend on
where the tree is checked out.

To regenerate the expected files after an intended change:

    UPDATE_GOLDEN=1 meson test -C BUILD --suite golden

then review `git diff tests/golden/expected` row by row against
`readelf --debug-dump=frames-interp FILE` before committing: a golden file is
only worth something once a person has checked it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# The functions of chain.c, kept from the static fixtures.
CHAIN_FUNCS = ["main", "touch", "compare", "drap", "leaf", "f3", "f2", "f1"]


def case(args, kind="json", nm_filter=None, setup=None):
    return {"args": args, "kind": kind, "nm_filter": nm_filter, "setup": setup}


def alone(names, debug_subdir=False):
    """A setup that copies the named fixtures into an empty directory, the
    debug file (the last name) into its .debug/ subdirectory when asked."""
    def setup(bindir, tmp):
        for i, n in enumerate(names):
            dest = tmp
            if debug_subdir and i == len(names) - 1:
                dest = os.path.join(tmp, ".debug")
                os.makedirs(dest, exist_ok=True)
            shutil.copy(os.path.join(bindir, n), dest)
        return tmp
    return setup


# PCs of chain-pie, from `nm -n` and `objdump -d` (see expected/*.json for the rows).
CASES = {
    "chain-pie": case(["chain-pie"]),
    "chain-pie-text": case(["chain-pie"], kind="text"),
    "chain-nopie": case(["chain-nopie"]),
    "chain-static": case(["chain-static"], nm_filter=CHAIN_FUNCS),
    "chain-static-pie": case(["chain-static-pie"], nm_filter=CHAIN_FUNCS),
    "except": case(["except"]),
    "libdframe": case(["libdframe.so"]),
    "libdframe-raw": case(["libdframe.so"], kind="raw"),
    "both": case(["both"]),
    # .gnu_debuglink found next to the file.
    "both-stripped": case(["both-stripped"]),
    # No debug file anywhere: only the .eh_frame rows.
    "both-stripped-alone": case(["both-stripped"], setup=alone(["both-stripped"])),
    # A file named like the debug link but from another build: not used.
    "both-stripped-wrong-debug": case(["both-stripped"], setup=lambda b, t: (
        shutil.copy(os.path.join(b, "both-stripped"), t),
        shutil.copy(os.path.join(b, "libdframe.so"), os.path.join(t, "both-stripped.debug")),
        t)[-1]),
    # The debug file is there but not looked for.
    "both-stripped-no-debuginfo": case(["--no-debuginfo", "both-stripped"]),
    # .gnu_debuglink found in the .debug/ directory beside the file.
    "both-stripped-dotdebug": case(["both-stripped"],
                                   setup=alone(["both-stripped", "both-stripped.debug"],
                                               debug_subdir=True)),
    # An explicit --debug-file, the debug file renamed so no lookup finds it.
    "both-stripped-debug-file": case(["--debug-file", "renamed.debug", "both-stripped"],
                                     setup=lambda b, t: (
                                         shutil.copy(os.path.join(b, "both-stripped"), t),
                                         shutil.copy(os.path.join(b, "both-stripped.debug"),
                                                     os.path.join(t, "renamed.debug")),
                                         t)[-1]),
    "chain-aarch64": case(["chain-aarch64"]),
    # The vDSO of Debian 12's arm64 kernel, which has no CFI: its code's rows.
    "vdso-aarch64": case(["vdso-aarch64"], kind="text"),
    # --pc on known rows: the PLT expression (lazy-binding stub of qsort, after
    # its push), the 40016-byte frame of f1, the DRAP dereference of drap, the
    # realigned leaf, 0x107c in the padding between main and _start, and
    # 0x800, below the first row (both without unwind info; _init at 0x1000
    # has rows from its code).
    "pc-plt": case(["--pc", "0x1030", "chain-pie"], kind="text"),
    "pc-plt-json": case(["--json", "--pc", "0x103b", "chain-pie"]),
    "pc-deep": case(["--pc", "0x13a0", "chain-pie"], kind="text"),
    "pc-drap": case(["--pc", "0x1200", "chain-pie"], kind="text"),
    "pc-leaf": case(["--pc", "0x1270", "chain-pie"], kind="text"),
    "pc-gap": case(["--pc", "0x107c", "chain-pie"], kind="text"),
    "pc-gap-json": case(["--json", "--pc", "0x107c", "chain-pie"]),
    "pc-static-deep": case(["--pc", "0x401870", "chain-static"], kind="text"),
    "pc-before-first": case(["--pc", "0x800", "chain-pie"], kind="text"),
    # The whole static file in numbers: FDEs, rows, unsupported rows by reason.
    "chain-static-summary": case(["--summary", "chain-static"], kind="text"),
    "chain-static-summary-json": case(["--summary", "--json", "chain-static"]),
}


def nm_ranges(path, names):
    out = subprocess.run(["nm", "-S", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    ranges = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in names and f[2] in "tT":
            start = int(f[0], 16)
            ranges.append((start, start + int(f[1], 16)))
    missing = set(names) - {f.split()[-1] for f in out.splitlines() if f.split()[-1] in names}
    if missing:
        raise RuntimeError("%s: no symbol %s" % (path, ", ".join(sorted(missing))))
    return sorted(ranges)


def keep_rows(rows, ranges):
    """The rows whose pc lies in one of the ranges, plus the row right after
    each range (the END row, or the next function's first row)."""
    kept = []
    for i, r in enumerate(rows):
        pc = int(r["pc"], 16)
        if any(lo <= pc < hi for lo, hi in ranges):
            kept.append(r)
        elif i > 0 and rows[i - 1] in kept and any(pc == hi for _, hi in ranges):
            kept.append(r)
    return kept


def format_json(doc):
    """One key per line, one row per line: diffs show the rows that changed."""
    lines = ["{"]
    items = list(doc.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if k == "rows" and isinstance(v, list):
            lines.append('  "rows": [')
            for j, r in enumerate(v):
                lines.append("    " + json.dumps(r) + ("," if j < len(v) - 1 else ""))
            lines.append("  ]" + comma)
        else:
            lines.append("  %s: %s%s" % (json.dumps(k), json.dumps(v), comma))
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_case(unwprof, bindir, name, c):
    tmp = tempfile.mkdtemp(prefix="unwprof-golden-")
    try:
        cwd = c["setup"](bindir, tmp) if c["setup"] else bindir
        args = list(c["args"])
        if c["kind"] in ("json", "raw") and "--json" not in args:
            args.insert(0, "--json")
        p = subprocess.run([unwprof, "dump-unwind"] + args, cwd=cwd,
                           capture_output=True, timeout=60)
        if p.returncode != 0:
            return None, "%s: exit %d\n%s" % (name, p.returncode,
                                            p.stderr.decode(errors="replace"))
        out = p.stdout.decode()
        if c["kind"] == "json":
            doc = json.loads(out)
            if c["nm_filter"]:
                ranges = nm_ranges(os.path.join(cwd, args[-1]), c["nm_filter"])
                doc["rows"] = keep_rows(doc["rows"], ranges)
                doc["rows_note"] = "only the rows of %s" % ", ".join(c["nm_filter"])
            out = format_json(doc)
        return out, None
    finally:
        shutil.rmtree(tmp)


def compare(name, out, expected_path):
    with tempfile.NamedTemporaryFile("w", suffix="-" + name, delete=False) as f:
        f.write(out)
        actual = f.name
    try:
        p = subprocess.run(["diff", "-u", expected_path, actual],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.stdout.write(p.stdout)
            print("FAIL %s: output differs from %s" % (name, expected_path))
            return False
        return True
    finally:
        os.unlink(actual)


def main(argv):
    if len(argv) < 4 and argv[1:2] != ["--cases-are"]:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 1
    if argv[1] == "--cases-are":
        # meson.build lists the cases one test each: it must list them all.
        listed, known = set(argv[2:]), set(CASES)
        for n in sorted(known - listed):
            print("FAIL case %s is not listed in tests/golden/meson.build" % n)
        for n in sorted(listed - known):
            print("FAIL tests/golden/meson.build lists unknown case %s" % n)
        return 0 if listed == known else 1
    unwprof = os.path.abspath(argv[1])
    bindir = os.path.abspath(argv[2])
    expdir = os.path.abspath(argv[3])
    names = argv[4:] or list(CASES)
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    for tool in ("nm", "diff"):
        if not shutil.which(tool):
            print("%s not found: skipped" % tool)
            return 77
    ok = True
    for name in names:
        if name not in CASES:
            print("FAIL unknown case %s" % name)
            ok = False
            continue
        c = CASES[name]
        out, err = run_case(unwprof, bindir, name, c)
        if err:
            print("FAIL " + err)
            ok = False
            continue
        ext = "json" if c["kind"] in ("json", "raw") else "txt"
        expected = os.path.join(expdir, "%s.%s" % (name, ext))
        if update:
            with open(expected, "w") as f:
                f.write(out)
            print("updated %s" % expected)
        elif not os.path.exists(expected):
            print("FAIL %s: no expected file %s (UPDATE_GOLDEN=1 writes it)" % (name, expected))
            ok = False
        elif compare(name, out, expected):
            print("ok %s" % name)
        else:
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare `unwprof dump-unwind --json FILE` with GNU readelf's interpretation of the CFI.

usage: readelf_oracle.py [--readelf PATH] [--max-list N] UNWPROF FILE

For every address where `readelf --debug-dump=frames-interp` starts a row, and
for the last address of every FDE, the unwprof row governing that address must
give the same CFA rule, the same frame pointer rule (rbp, x29) and the same
return-address rule (on aarch64 the link register, x30, where CFI keeps it).
aarch64's PLT has no CFI: its rows must be the rules of its code.
CFA and register expressions (readelf prints `exp`) are decoded from the raw
`readelf --debug-dump=frames` output and must match the PLT, dereference or
unsupported rule of unwprof. An FDE whose CIE has the 'S' augmentation (a
signal trampoline) whose CFA is *(rsp+N) and whose rbp and return address are
at rsp+M and rsp+K must be unwprof's signal frame rule. Every gap between FDEs
must be an `end` row, and no unwprof rule may start outside all FDEs, except in
the ranges whose rows unwprof derives from x86-64 code (its JSON's "code",
checked by code_x64_oracle.py). Rows must be sorted and not repeat.

Exit status: 0 when every supported rule agrees, 1 on a disagreement or a
broken table invariant, 2 when a tool fails, 77 (skip) when FILE does not exist or
is neither x86_64 nor aarch64.
"""

import argparse
import bisect
import functools
import json
import os
import re
import subprocess
import sys

# A rule the unwinder cannot follow is "unsupported" with one of these reasons.
UNSUPPORTED = "unsupported"

S32_MIN, S32_MAX = -(1 << 31), (1 << 31) - 1

RE_SECTION = re.compile(r"^Contents of the (\S+) section")
RE_ENTRY = re.compile(r"^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (CIE|FDE)\b(.*)$")
RE_FDE = re.compile(r"cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)")
RE_CIE_AUG = re.compile(r'^\s*"([^"]*)"')
RE_ROW = re.compile(r"^[0-9a-f]+ ")
RE_REGOP = re.compile(r"^DW_CFA_(\w+): r(\d+)\b")
RE_EXPR = re.compile(r"^DW_CFA_(val_)?expression: r(\d+) \([^)]*\) \((.*)\)$")
RE_ADVANCE = re.compile(r"^DW_CFA_(?:advance_loc\d?|set_loc)\b.*?([0-9a-f]{8,})$")
RE_BREG = re.compile(r"^DW_OP_breg(\d+) \(\w+\): (-?\d+)$")
RE_OP_ARG = re.compile(r"^DW_OP_(\w+): (-?\d+)$")
RE_VALUE = re.compile(r"^(\S+(?: \([\w.]+\))?)")

# The registers of each architecture (DWARF numbers) and readelf's name of the frame pointer.
ARCHS = {
    "x86_64": {"sp": 7, "fp": 6, "ra": 16, "names": ("rsp", "rbp")},
    "aarch64": {"sp": 31, "fp": 29, "ra": 30, "names": ("sp", "x29")},
}
REG_RSP, REG_RBP, REG_RIP = 7, 6, 16
REG_NAME = {REG_RSP: "rsp", REG_RBP: "rbp"}
FP_COL = "rbp"
AARCH64 = False


def set_arch(arch):
    """The registers of arch become those the expected rules are written with."""
    global REG_RSP, REG_RBP, REG_RIP, REG_NAME, FP_COL, AARCH64
    a = ARCHS[arch]
    REG_RSP, REG_RBP, REG_RIP = a["sp"], a["fp"], a["ra"]
    REG_NAME = {REG_RSP: a["names"][0], REG_RBP: a["names"][1]}
    FP_COL = a["names"][1]
    AARCH64 = arch == "aarch64"


class Entry:
    """A CIE or FDE: readelf's interpreted rows and the raw instructions."""

    def __init__(self, section, off, kind, cie=None, start=0, end=0):
        self.section = section
        self.off = off
        self.kind = kind
        self.cie = cie
        self.start = start
        self.end = end
        self.rows = []		# [(loc, cfa text, {column name: text})]
        self.insns = []		# raw DW_CFA_* lines
        self.states = None	# sorted [(loc, expression state)] from the raw lines
        self.state_locs = None
        self.aug = ""		# a CIE's augmentation string


def run(cmd, tolerate=False):
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    except OSError as e:
        sys.exit(f"readelf_oracle: cannot run {cmd[0]}: {e.strerror}")
    err = res.stderr.decode(errors="replace").strip()
    if res.returncode != 0 and (not res.stdout or not tolerate):
        print(f"readelf_oracle: {' '.join(cmd)} failed ({res.returncode}): {err}", file=sys.stderr)
        sys.exit(2)
    if res.returncode != 0:
        # readelf exits 1 on complaints unrelated to the frames it printed
        # (e.g. "Unable to find program interpreter name" in a debug file).
        print(f"readelf_oracle: {os.path.basename(cmd[0])} exited {res.returncode}, "
              f"output used: {err}", file=sys.stderr)
    return res.stdout.decode(errors="replace")


def split_columns(line, names):
    """Splits a frames-interp row; blank register columns are unreferenced registers."""
    loc, _, rest = line.partition(" ")
    pos = 0
    cfa = rest[pos:].split(" ", 1)[0]
    pos = max(9, len(cfa) + 1)
    cols = {}
    for name in names:
        seg = rest[pos:]
        if not seg or seg[0] == " ":
            pos += 6
            continue
        # A register rule reads "r10 (r10)": the only value with a space.
        tok = RE_VALUE.match(seg).group(1)
        cols[name] = tok
        pos += max(6, len(tok) + 1)
    return int(loc, 16), cfa, cols


def parse_interp(text):
    entries = {}
    section = None
    cur = None
    names = []
    for line in text.splitlines():
        m = RE_SECTION.match(line)
        if m:
            section = m.group(1)
            cur = None
            continue
        m = RE_ENTRY.match(line)
        if m:
            off = int(m.group(1), 16)
            if m.group(4) == "CIE":
                cur = Entry(section, off, "CIE")
                a = RE_CIE_AUG.match(m.group(5))
                cur.aug = a.group(1) if a else ""
            else:
                f = RE_FDE.search(m.group(5))
                if not f:
                    cur = None
                    continue
                cur = Entry(section, off, "FDE", int(f.group(1), 16), int(f.group(2), 16),
                            int(f.group(3), 16))
            entries[(section, off)] = cur
            continue
        if cur is None:
            continue
        if line.startswith("   LOC"):
            names = line.split()[2:]
        elif RE_ROW.match(line):
            cur.rows.append(split_columns(line, names))
    return entries


def parse_raw(text, entries):
    section = None
    cur = None
    for line in text.splitlines():
        m = RE_SECTION.match(line)
        if m:
            section = m.group(1)
            cur = None
            continue
        m = RE_ENTRY.match(line)
        if m:
            cur = entries.get((section, int(m.group(1), 16)))
            continue
        s = line.strip()
        if cur is not None and s.startswith("DW_CFA_"):
            cur.insns.append(s)


def fresh_state():
    return {"cfa": None, "regs": {}}


def copy_state(st):
    return {"cfa": st["cfa"], "regs": dict(st["regs"])}


def execute(insns, st, loc, cie_regs, states):
    """Follows the CFA expression and the register rules through raw instructions."""
    stack = []
    for s in insns:
        m = RE_ADVANCE.match(s)
        if m:
            states[loc] = copy_state(st)
            loc = int(m.group(1), 16)
            continue
        if s.startswith("DW_CFA_def_cfa_expression"):
            st["cfa"] = s[s.index("(") + 1:s.rindex(")")]
            continue
        if s.startswith(("DW_CFA_def_cfa:", "DW_CFA_def_cfa_sf:", "DW_CFA_def_cfa_register:")):
            st["cfa"] = None
            continue
        if s == "DW_CFA_remember_state":
            stack.append(copy_state(st))
            continue
        if s == "DW_CFA_restore_state":
            if stack:
                st.update(stack.pop())
            continue
        m = RE_EXPR.match(s)
        if m:
            st["regs"][int(m.group(2))] = ("vexp" if m.group(1) else "exp", m.group(3))
            continue
        m = RE_REGOP.match(s)
        if m:
            op, reg = m.group(1), int(m.group(2))
            if op.startswith("restore"):
                st["regs"][reg] = cie_regs.get(reg)
            elif op == "undefined":
                st["regs"][reg] = ("undefined", None)
            else:
                st["regs"][reg] = (op, None)
    states[loc] = copy_state(st)
    return st


def build_states(entries):
    cie_final = {}
    for key, e in entries.items():
        if e.kind == "CIE":
            states = {}
            cie_final[key] = execute(e.insns, fresh_state(), 0, {}, states)
    for e in entries.values():
        if e.kind != "FDE":
            continue
        init = cie_final.get((e.section, e.cie), fresh_state())
        states = {}
        execute(e.insns, copy_state(init), e.start, init["regs"], states)
        e.states = sorted(states.items())
        e.state_locs = [loc for loc, _ in e.states]


def state_at(e, loc):
    i = bisect.bisect_right(e.state_locs, loc) - 1
    return e.states[max(i, 0)][1] if e.states else fresh_state()


def parse_ops(text):
    ops = []
    for op in text.split("; "):
        op = op.strip()
        m = RE_BREG.match(op)
        if m:
            ops.append(("breg", int(m.group(1)), int(m.group(2))))
            continue
        m = RE_OP_ARG.match(op)
        if m:
            ops.append((m.group(1), int(m.group(2))))
            continue
        if op.startswith("DW_OP_lit") and op[9:].isdigit():
            ops.append(("lit", int(op[9:])))
            continue
        ops.append((op.replace("DW_OP_", ""),))
    return ops


def unsup(*reasons):
    return (UNSUPPORTED, frozenset(reasons))


def expect_cfa_expr(text):
    ops = parse_ops(text)
    if (not AARCH64 and len(ops) == 9 and ops[0][:2] == ("breg", REG_RSP)
            and ops[1] == ("breg", REG_RIP, 0)
            and ops[2] == ("lit", 15) and ops[3] == ("and",) and ops[4][0] == "lit"
            and ops[5] == ("ge",) and ops[6] == ("lit", 3) and ops[7] == ("shl",)
            and ops[8] == ("plus",)):
        return ("plt", ops[0][2], ops[4][1])
    if len(ops) == 1 and ops[0][0] == "breg":
        # DW_OP_bregR N alone is the CFA rule R+N written as an expression.
        if ops[0][1] not in REG_NAME:
            return unsup("cfa-register", "cfa-expression")
        return ("reg", REG_NAME[ops[0][1]], ops[0][2])
    if len(ops) >= 2 and ops[0][0] == "breg" and ops[1] == ("deref",):
        reg, off = ops[0][1], ops[0][2]
        if len(ops) == 2:
            add = 0
        elif len(ops) == 3 and ops[2][0] == "plus_uconst":
            add = ops[2][1]
        elif len(ops) == 4 and ops[2][0].startswith("const") and ops[3] == ("plus",):
            add = ops[2][1]
        elif len(ops) == 4 and ops[2][0] == "lit" and ops[3] == ("plus",):
            add = ops[2][1]
        else:
            return unsup("cfa-expression")
        if reg not in REG_NAME:
            return unsup("cfa-expression", "cfa-register")
        if not (S32_MIN <= off <= S32_MAX and S32_MIN <= add <= S32_MAX):
            return unsup("cfa-expression", "cfa-offset")
        return ("deref", REG_NAME[reg], off, add)
    return unsup("cfa-expression")


def expect_cfa(text, st):
    if text == "exp":
        return expect_cfa_expr(st["cfa"] or "")
    m = re.match(r"^(\w+)([+-]\d+)$", text)
    if not m:
        return unsup("cfa-expression", "cfa-register")
    if m.group(1) not in REG_NAME.values():
        return unsup("cfa-register")
    off = int(m.group(2))
    if not S32_MIN <= off <= S32_MAX:
        return unsup("cfa-offset")
    return ("reg", m.group(1), off)


def expect_fp(text, st):
    rule = st["regs"].get(REG_RBP)
    if text is None or text == "s":
        return ("unchanged",)
    if text == "u":
        # readelf also prints "u" for a register that this FDE sets later on.
        if rule and rule[0] == "undefined":
            return ("either", (("unchanged",), unsup("fp-rule")))
        return ("unchanged",)
    m = re.match(r"^c([+-]\d+)$", text)
    if m:
        off = int(m.group(1))
        return ("cfa", off) if S32_MIN <= off <= S32_MAX else unsup("fp-offset")
    if text == "exp" and rule and rule[0] == "exp":
        ops = parse_ops(rule[1])
        if len(ops) == 1 and ops[0][:2] == ("breg", REG_RBP):
            off = ops[0][2]
            return ("atfp", off) if S32_MIN <= off <= S32_MAX else unsup("fp-offset")
    return unsup("fp-rule")


def expect_ra_aarch64(text, st, cfa):
    """x30: kept in the register until saved (same value), saved at the CFA plus an offset."""
    rule = st["regs"].get(REG_RIP)
    if text is None or text == "s" or (text == "u" and not (rule and rule[0] == "undefined")):
        # readelf prints "u" for a register that this FDE sets later on, too.
        return ("lr",)
    if text == "u":
        return ("undefined",)
    m = re.match(r"^c([+-]\d+)$", text)
    if m:
        off = int(m.group(1))
        # The row's aux_off holds either the offset or the CFA's addend.
        if not S32_MIN <= off <= S32_MAX or cfa[0] == "deref":
            return unsup("ra-offset")
        return ("cfa", off)
    return unsup("ra-rule")


def expect_ra(text):
    if text is None:
        # No rule at all: DWARF says undefined, the x86_64 ABI says CFA-8; refusing is safe too.
        return ("either", (("cfa", -8), ("undefined",), unsup("ra-rule")))
    if text == "c-8":
        return ("cfa", -8)
    if text == "u":
        return ("undefined",)
    return unsup("ra-rule")


def rsp_offset(text, deref):
    """N of the expression DW_OP_breg7 N alone (followed by DW_OP_deref when deref), or None."""
    ops = parse_ops(text or "")
    if len(ops) != (2 if deref else 1) or ops[0][:2] != ("breg", REG_RSP):
        return None
    if deref and ops[1] != ("deref",):
        return None
    return ops[0][2]


def expect_signal(st):
    """The rules of a signal frame: the CFA is *(rsp+N), rbp at rsp+M, the return address at rsp+K."""
    regs = st["regs"]
    if st["cfa"] is None or regs.get(REG_RBP, ("",))[0] != "exp" or \
            regs.get(REG_RIP, ("",))[0] != "exp":
        return None
    n = rsp_offset(st["cfa"], True)
    m = rsp_offset(regs[REG_RBP][1], False)
    k = rsp_offset(regs[REG_RIP][1], False)
    if n is None or m is None or k is None:
        return None
    if not (S32_MIN <= n <= S32_MAX and S32_MIN <= m <= S32_MAX and S32_MIN <= k <= S32_MAX):
        return None
    return (("signal", n), ("atsp", m), ("atsp", k))


def expected_rule(e, loc, cfa_text, cols, signal=False):
    st = state_at(e, loc)
    if signal and cfa_text == "exp" and not AARCH64:
        rules = expect_signal(st)
        if rules:
            return rules
    cfa = expect_cfa(cfa_text, st)
    if AARCH64:
        return (cfa, expect_fp(cols.get(FP_COL), st), expect_ra_aarch64(cols.get("ra"), st, cfa))
    return (cfa, expect_fp(cols.get(FP_COL), st), expect_ra(cols.get("ra")))


@functools.lru_cache(maxsize=None)
def canon_unwprof(kind, text):
    """unwprof's rule text to the same tuples as the expected rules."""
    if text.startswith(UNSUPPORTED + ":"):
        return (UNSUPPORTED, text.split(":", 1)[1])
    if kind == "cfa":
        m = re.match(r"^(rsp|rbp|sp|x29)([+-]\d+)$", text)
        if m:
            return ("reg", m.group(1), int(m.group(2)))
        m = re.match(r"^\*\((rsp|rbp|sp|x29)([+-]\d+)\)(?:([+-]\d+))?$", text)
        if m:
            return ("deref", m.group(1), int(m.group(2)), int(m.group(3) or 0))
        if text.startswith("plt"):
            nums = [int(n) for n in re.findall(r"-?\d+", text)]
            return ("plt",) + tuple(nums)
        m = re.match(r"^signal:\*\(rsp([+-]\d+)\)$", text)
        if m:
            return ("signal", int(m.group(1)))
    elif kind == "fp":
        if text == "unchanged":
            return ("unchanged",)
        m = re.match(r"^cfa([+-]\d+)$", text)
        if m:
            return ("cfa", int(m.group(1)))
        m = re.match(r"^\*\((?:rbp|x29)([+-]\d+)\)$", text)
        if m:
            return ("atfp", int(m.group(1)))
        m = re.match(r"^\*\(rsp([+-]\d+)\)$", text)
        if m:
            return ("atsp", int(m.group(1)))
    else:
        if text == "undefined":
            return ("undefined",)
        if text == "lr":
            return ("lr",)
        m = re.match(r"^cfa([+-]\d+)$", text)
        if m:
            return ("cfa", int(m.group(1)))
        m = re.match(r"^\*\(rsp([+-]\d+)\)$", text)
        if m:
            return ("atsp", int(m.group(1)))
    return ("unknown", text)


def matches(exp, got, reasons):
    """True when unwprof's rule got is the expected rule exp."""
    if exp[0] == "either":
        return any(matches(alt, got, reasons) for alt in exp[1])
    if exp[0] == UNSUPPORTED:
        return got[0] == UNSUPPORTED and got[1] in (exp[1] | reasons)
    if exp[0] == "plt" and got[0] == "plt":
        # "plt" alone, or with the offset and threshold: compare what is printed.
        return len(got) == 1 or got[1:] == exp[1:len(got)]
    return exp == got


def unsupported_reasons(exp):
    if exp[0] == "either":
        return frozenset(r for alt in exp[1] for r in unsupported_reasons(alt))
    return exp[1] if exp[0] == UNSUPPORTED else frozenset()


def show(exp):
    if exp[0] == "either":
        return "|".join(show(a) for a in exp[1])
    if exp[0] == UNSUPPORTED:
        return "unsupported:" + "/".join(sorted(exp[1]))
    return ",".join(str(x) for x in exp)


class Table:
    """unwprof's rows, for looking up the rule that governs an address."""

    def __init__(self, doc):
        self.doc = doc
        self.rows = doc.get("rows", [])
        self.pcs = [int(r["pc"], 16) for r in self.rows]
        # Where the rows come from the functions' code (x86-64 without CFI).
        self.code = sorted((int(lo, 16), int(hi, 16))
                           for lo, hi in (doc.get("code") or {}).get("ranges", []))

    def lookup(self, addr):
        i = bisect.bisect_right(self.pcs, addr) - 1
        return None if i < 0 else self.rows[i]

    def invariant_errors(self):
        errs = []
        prev = None
        for i, r in enumerate(self.rows):
            if i and self.pcs[i] <= self.pcs[i - 1]:
                errs.append(f"rows not sorted at {r['pc']} (after {self.rows[i - 1]['pc']})")
            key = {k: v for k, v in r.items() if k != "pc"}
            if prev is not None and key == prev:
                errs.append(f"row at {r['pc']} repeats the previous row")
            prev = key
        if self.rows and not self.rows[-1].get("end"):
            errs.append(f"last row {self.rows[-1]['pc']} is not an end row")
        return errs


def fmt_row(r):
    if r is None:
        return "no row"
    if r.get("end"):
        return f"end (row {r['pc']})"
    return f"cfa={r['cfa']} fp={r['fp']} ra={r['ra']} (row {r['pc']})"


class Oracle:
    def __init__(self, table, name="readelf"):
        self.table = table
        self.name = name
        self.compared = 0
        self.agree = 0
        self.unsupported = {}
        self.disagree = []
        self.gaps = 0

    def check(self, addr, e, exp, readelf_text):
        self.compared += 1
        row = self.table.lookup(addr)
        ok = row is not None and not row.get("end")
        if ok:
            got = tuple(canon_unwprof(k, row.get(k, "")) for k in ("cfa", "fp", "ra"))
            reasons = frozenset(r for x in exp for r in unsupported_reasons(x))
            if exp[0][0] == UNSUPPORTED:
                # Once the CFA is lost, the other rules of the row do not matter.
                ok = matches(exp[0], got[0], reasons) and all(
                    matches(x, g, reasons) or g[0] == UNSUPPORTED for x, g in zip(exp[1:], got[1:]))
            else:
                ok = all(matches(x, g, reasons) for x, g in zip(exp, got))
        if not ok:
            self.disagree.append(
                f"{addr:#x} {e.section} FDE@{e.off:#x} pc={e.start:#x}..{e.end:#x}: "
                f"{self.name} {readelf_text} (expected {' '.join(show(x) for x in exp)}) "
                f"vs unwprof {fmt_row(row)}")
            return
        self.agree += 1
        for x, g in zip(exp, got):
            if g[0] == UNSUPPORTED:
                self.unsupported[g[1]] = self.unsupported.get(g[1], 0) + 1

    def check_gap(self, addr, before, after):
        self.gaps += 1
        row = self.table.lookup(addr)
        if row is None or not row.get("end"):
            nxt = f", next FDE at {after:#x}" if after is not None else ""
            self.disagree.append(f"{addr:#x} gap after FDE ending there{nxt}: "
                                 f"{self.name} no FDE vs unwprof {fmt_row(row)}")


def merge_spans(fdes):
    """The address ranges the FDEs cover, adjacent and overlapping ones merged."""
    merged = []
    for s, t in sorted((e.start, e.end) for e in fdes):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], t)
        else:
            merged.append([s, t])
    return merged


# aarch64's PLT has no CFI: unwprof describes its code, "CFA sp, return address in x30",
# and CFA sp+16 in the lazy-binding header after it pushed x16 and x30.
PLT_RULES = ({"cfa": "sp+0", "fp": "unchanged", "ra": "lr"},
             {"cfa": "sp+16", "fp": "unchanged", "ra": "lr"})


def in_ranges(ranges, addr):
    return any(lo <= addr < hi for lo, hi in ranges)


def check_coverage(oracle, merged, plts=()):
    """Every gap must start with an end row, and no rule may start outside all FDEs (or the PLT,
    or code whose rows unwprof derives from the code itself: tests/oracle/code_x64_oracle.py)."""
    code = oracle.table.code
    for i, (s, t) in enumerate(merged):
        if not in_ranges(plts, t) and not in_ranges(code, t):
            oracle.check_gap(t, s, merged[i + 1][0] if i + 1 < len(merged) else None)
    starts = [m[0] for m in merged]
    for pc, row in zip(oracle.table.pcs, oracle.table.rows):
        if row.get("end") or in_ranges(code, pc):
            continue
        if in_ranges(plts, pc):
            if {k: row.get(k) for k in ("cfa", "fp", "ra")} not in PLT_RULES:
                oracle.disagree.append(f"{pc:#x} in the PLT: unwprof {fmt_row(row)}")
            continue
        i = bisect.bisect_right(starts, pc) - 1
        if i < 0 or pc >= merged[i][1]:
            oracle.disagree.append(f"{pc:#x} outside every FDE: {oracle.name} no FDE vs "
                                   f"unwprof {fmt_row(row)}")
    for lo, hi in plts:
        first, after = oracle.table.lookup(lo), oracle.table.lookup(hi)
        if first is None or int(first["pc"], 16) != lo:
            oracle.disagree.append(f"{lo:#x} the PLT has no row of its own: unwprof {fmt_row(first)}")
        i = bisect.bisect_right(starts, hi) - 1
        if not (i >= 0 and hi < merged[i][1]) and (after is None or not after.get("end")):
            oracle.disagree.append(f"{hi:#x} the end of the PLT: unwprof {fmt_row(after)}")


def plt_ranges(readelf, path):
    """[lo, hi) of the .plt and .iplt sections of an aarch64 file (readelf -SW)."""
    out = []
    for line in run([readelf, "-SW", path]).splitlines():
        m = re.search(r"\] (\.i?plt) +PROGBITS +([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)", line)
        if m:
            lo, size = int(m.group(2), 16), int(m.group(3), 16)
            if size >= 4:
                out.append((lo, lo + size))
    return out


def fde_rows(e, entries):
    """readelf's rows of an FDE, or its CIE's row when the FDE has no instructions."""
    rows = [r for r in e.rows if e.start <= r[0] < e.end]
    if not rows:
        cie = entries.get((e.section, e.cie))
        if cie is None or not cie.rows:
            return []
        _, cfa, cols = cie.rows[-1]
        rows = [(e.start, cfa, cols)]
    dedup = {}
    for loc, cfa, cols in rows:
        dedup[loc] = (cfa, cols)
    return sorted((loc, v[0], v[1]) for loc, v in dedup.items())


def readelf_text(cfa, cols):
    return f"cfa={cfa} {FP_COL}={cols.get(FP_COL, '-')} ra={cols.get('ra', '-')}"


class Coverage:
    """Which addresses the FDEs cover, and which more than one FDE covers."""

    def __init__(self, fdes):
        events = sorted([(e.start, 1) for e in fdes] + [(e.end, -1) for e in fdes])
        self.once, self.twice = [], []	# sorted disjoint [start, end) ranges
        depth = 0
        for addr, step in events:
            before = depth
            depth += step
            for spans, level in ((self.once, 1), (self.twice, 2)):
                if before < level <= depth:
                    spans.append([addr, None])
                elif depth < level <= before:
                    spans[-1][1] = addr
        self.once_starts = [r[0] for r in self.once]
        self.twice_starts = [r[0] for r in self.twice]

    @staticmethod
    def _inside(starts, spans, addr):
        i = bisect.bisect_right(starts, addr) - 1
        return i >= 0 and addr < spans[i][1]

    def covers(self, addr):
        return self._inside(self.once_starts, self.once, addr)

    def covers_twice(self, addr):
        return self._inside(self.twice_starts, self.twice, addr)


def compare(entries, table, sources, plts=()):
    oracle = Oracle(table)
    by_section = {}
    for e in entries.values():
        if e.kind == "FDE" and e.end > e.start:
            by_section.setdefault(e.section, []).append(e)
    eh = by_section.get(".eh_frame", [])
    dbg = by_section.get(".debug_frame", []) if ".debug_frame" in sources else []
    eh_cov = Coverage(eh)
    dbg_cov = Coverage(dbg)
    skipped = 0
    for fdes, own, other in ((eh, eh_cov, None), (dbg, dbg_cov, eh_cov)):
        for e in fdes:
            cie = entries.get((e.section, e.cie))
            signal = cie is not None and "S" in cie.aug
            rows = fde_rows(e, entries)
            checks = [(loc, cfa, cols) for loc, cfa, cols in rows]
            if rows:
                checks.append((e.end - 1,) + rows[-1][1:])
            for loc, cfa, cols in checks:
                if own.covers_twice(loc) or (other and other.covers(loc)):
                    skipped += 1
                    continue
                exp = expected_rule(e, loc, cfa, cols, signal)
                oracle.check(loc, e, exp, readelf_text(cfa, cols))
    check_coverage(oracle, merge_spans(eh + dbg), plts)
    return oracle, len(eh) + len(dbg), skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--readelf", default=os.environ.get("READELF", "readelf"))
    ap.add_argument("--max-list", type=int, default=20, help="disagreements to list")
    ap.add_argument("unwprof")
    ap.add_argument("file")
    args = ap.parse_args()

    if not os.path.exists(args.file):
        print(f"readelf_oracle: {args.file} does not exist, skipping")
        return 77

    doc = json.loads(run([args.unwprof, "dump-unwind", "--json", "--no-debuginfo",
                          args.file]))
    if doc.get("arch") not in ARCHS:
        print(f"readelf_oracle: {args.file} is {doc.get('arch')}, only x86_64 and aarch64 "
              "are compared")
        return 77
    set_arch(doc["arch"])
    table = Table(doc)
    entries = parse_interp(run([args.readelf, "-wN", "--debug-dump=frames-interp", args.file],
                                 tolerate=True))
    parse_raw(run([args.readelf, "-wN", "--debug-dump=frames", args.file], tolerate=True), entries)
    build_states(entries)

    plts = plt_ranges(args.readelf, args.file) if AARCH64 else []
    oracle, nfdes, skipped = compare(entries, table, doc.get("sources", []), plts)
    inv = table.invariant_errors()

    name = os.path.basename(args.file)
    print(f"{name}: readelf {nfdes} FDEs, unwprof {doc.get('fdes')} FDEs, "
          f"{len(table.rows)} rows, sources {','.join(doc.get('sources', []))}")
    print(f"{name}: {oracle.compared} rows compared, {oracle.agree} agree, "
          f"{len(oracle.disagree)} disagree, {oracle.gaps} gaps checked, "
          f"{skipped} addresses skipped (covered by two FDEs)")
    unsup_txt = ", ".join(f"{k}: {v}" for k, v in sorted(oracle.unsupported.items())) or "none"
    print(f"{name}: unsupported rules at compared addresses, per rule (agreeing with readelf): {unsup_txt}")
    print(f"{name}: unwprof reports unsupported rows: "
          f"{json.dumps(doc.get('unsupported', {}), sort_keys=True)}")
    for line in oracle.disagree[:args.max_list]:
        print(f"DISAGREE {line}")
    if len(oracle.disagree) > args.max_list:
        print(f"... and {len(oracle.disagree) - args.max_list} more disagreements")
    for line in inv[:args.max_list]:
        print(f"INVARIANT {line}")
    return 1 if oracle.disagree or inv else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What unwprof reads of a perl, checked against the headers of its exact version.

    perl_runtime.py UNWPROF --host          Debian's /usr/bin/perl (5.36)
    perl_runtime.py UNWPROF --sid           the sid root's /usr/bin/perl (5.42)

`unwprof dump-unwind --summary --json` gives the version and the offsets
unwprof reads the interpreter with (core/runtimes/perl/plruntime.c). A C
program that includes the perl's own headers (its Config's archlibexp/CORE:
perl.h, intrpvar.h, cop.h, sv.h, cv.h, gv.h, hv.h, opnames.h, as Debian's
libperl5.X ships them), compiled with its Config's ccflags, prints each
offset with offsetof and each op number: every one must equal unwprof's;
so must the constants bpf/unwind_perl.h says are the same in every
version (context types and flags, stack info types, SV types and flags),
the header's version must be the binary's, and each field the walk reads
as 32 bits must be 32 bits.

Exit 0 when all agree, 1 when one does not, 77 (skip) when the perl or its
headers are absent (a failure under CI, where setup.sh installs them).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77

FIELDS = {
    "interp.op": "offsetof(struct interpreter, Iop)",
    "interp.curcop": "offsetof(struct interpreter, Icurcop)",
    "interp.curstackinfo": "offsetof(struct interpreter, Icurstackinfo)",
    "si.cxstack": "offsetof(struct stackinfo, si_cxstack)",
    "si.prev": "offsetof(struct stackinfo, si_prev)",
    "si.cxix": "offsetof(struct stackinfo, si_cxix)",
    "si.cxmax": "offsetof(struct stackinfo, si_cxmax)",
    "si.type": "offsetof(struct stackinfo, si_type)",
    "cx.size": "sizeof(struct context)",
    "cx.oldcop": "offsetof(struct context, cx_u.cx_blk.blku_oldcop)",
    "cx.retop": "offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.retop)",
    "cx.cv": "offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.cv)",
    "cop.line": "offsetof(struct cop, cop_line)",
    "cop.file": "offsetof(struct cop, cop_file)",
    "sv.flags": "offsetof(struct sv, sv_flags)",
    "sv.u": "offsetof(struct sv, sv_u)",
    "cv.stash": "offsetof(struct xpvcv, xcv_stash)",
    "cv.start": "offsetof(struct xpvcv, xcv_start_u)",
    "cv.gv": "offsetof(struct xpvcv, xcv_gv_u)",
    "cv.flags": "offsetof(struct xpvcv, xcv_flags)",
    "gv.name": "offsetof(struct xpvgv, xiv_u)",
    "gv.stash": "offsetof(struct xpvgv, xnv_u)",
    "gp.egv": "offsetof(struct gp, gp_egv)",
    "hv.aux": "offsetof(struct xpvhv_with_aux, xhv_aux)",
    "aux.name": "offsetof(struct xpvhv_aux, xhv_name_u)",
    "aux.name_count": "offsetof(struct xpvhv_aux, xhv_name_count)",
    "hek.len": "offsetof(struct hek, hek_len)",
    "hek.key": "offsetof(struct hek, hek_key)",
    "op.require": "OP_REQUIRE",
    "op.dofile": "OP_DOFILE",
    "op.entereval": "OP_ENTEREVAL",
    "op.nextstate": "OP_NEXTSTATE",
    "op.dbstate": "OP_DBSTATE",
    "op.mapstart": "OP_MAPSTART",
    "op.mapwhile": "OP_MAPWHILE",
    "op.grepstart": "OP_GREPSTART",
    "op.grepwhile": "OP_GREPWHILE",
    "op.type": "op_type_offset()",
}

# What the walk takes from one field for another's, or reads at a fixed size.
SAME = {
    "eval's retop": ("offsetof(struct context, cx_u.cx_blk.blk_u.blku_eval.retop)",
                     "offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.retop)"),
    "format's retop": ("offsetof(struct context, cx_u.cx_blk.blk_u.blku_format.retop)",
                       "offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.retop)"),
    "format's cv": ("offsetof(struct context, cx_u.cx_blk.blk_u.blku_format.cv)",
                    "offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.cv)"),
    "a context's type": ("offsetof(struct context, cx_u.cx_blk.blku_type)", "0"),
    "blk_u16": ("offsetof(struct context, cx_u.cx_blk.blku_u16)", "2"),
    "sv_any": ("offsetof(struct sv, sv_any)", "0"),
    "op_next": ("offsetof(struct op, op_next)", "0"),
    "an op read": ("op_type_offset() + 2", "UNW_PL_OP_READ_CHECK"),
    "sv_flags' size": ("sizeof(((struct sv *)0)->sv_flags)", "4"),
    "xcv_flags' size": ("sizeof(((struct xpvcv *)0)->xcv_flags)", "4"),
    "cop_line's size": ("sizeof(((struct cop *)0)->cop_line)", "4"),
    "si_cxix's size": ("sizeof(((struct stackinfo *)0)->si_cxix)", "4"),
    "si_type's size": ("sizeof(((struct stackinfo *)0)->si_type)", "4"),
    "a context read": ("offsetof(struct context, cx_u.cx_blk.blk_u.blku_sub.cv) + 8",
                       "UNW_PL_CX_READ_CHECK"),
    "op types in the mask": ("OP_max - 1", "UNW_PL_OP_TYPE_MASK_CHECK"),
}

# bpf/unwind_perl.h's constants, by the name Perl's headers give them.
CONSTANTS = ["CXTYPEMASK", "CXt_NULL", "CXt_SUB", "CXt_FORMAT", "CXt_EVAL", "CXp_SUB_RE_FAKE",
             "CXp_EVALBLOCK", "CXp_TRY", "PERLSI_MAIN", "PERLSI_SORT", "SVt_MASK", "SVt_PVGV",
             "SVt_PVCV", "SVpgv_GP", "CVf_NAMED"]


def header_constants(src):
    """The UNW_PL_ constants of bpf/unwind_perl.h, by Perl's names."""
    text = open(os.path.join(src, "bpf", "unwind_perl.h")).read()
    return {m.group(1): int(m.group(2), 0)
            for m in re.finditer(r"#define UNW_PL_(\w+) (0x[0-9a-f]+|\d+)", text)}


def program(consts):
    lines = ['#include "EXTERN.h"', '#include "perl.h"', "#include <stddef.h>",
             "#include <stdio.h>", "#include <string.h>",
             f"#define UNW_PL_CX_READ_CHECK {consts['CX_READ']}",
             f"#define UNW_PL_OP_TYPE_MASK_CHECK {consts['OP_TYPE_MASK']}",
             f"#define UNW_PL_OP_READ_CHECK {consts['OP_READ']}",
             # op_type is a bitfield: the first 16 bits that hold its 9, as the walk reads them
             "static long op_type_offset(void)", "{", "\tstruct op o;", "\tU16 v;",
             "\tfor (long i = 0; i + 2 <= (long)sizeof(o); i++) {",
             "\t\tmemset(&o, 0, sizeof(o));", "\t\to.op_type = OP_max - 1;",
             "\t\tmemcpy(&v, (char *)&o + i, 2);",
             "\t\tif (v == OP_max - 1)", "\t\t\treturn i;", "\t}", "\treturn -1;", "}",
             "int main(void)", "{"]
    for name, expr in FIELDS.items():
        lines.append(f'\tprintf("field %s %ld\\n", "{name}", (long)({expr}));')
    for name, (a, b) in SAME.items():
        op = "<=" if name in ("a context read", "op types in the mask", "an op read") else "=="
        lines.append(f'\tprintf("same %s %d\\n", "{name.replace(" ", "_")}", '
                     f'(int)(({a}) {op} ({b})));')
    for c in CONSTANTS:
        lines.append(f'\tprintf("const %s %ld\\n", "{c}", (long)({c}));')
    lines.append('\tprintf("version %d.%d\\n", PERL_REVISION, PERL_VERSION);')
    lines += ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def perl_config(run, key):
    return subprocess.run(run + ["-MConfig", "-e", f"print $Config{{{key}}}"],
                          capture_output=True, text=True, check=True).stdout


def skip(why):
    if os.environ.get("CI"):
        print(f"FAIL: {why}, and CI must run this test", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(SKIP)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("unwprof")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--host", action="store_true")
    g.add_argument("--sid", action="store_true")
    args = p.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = ""
    run = ["/usr/bin/perl"]
    if args.sid:
        root = os.environ.get("UNWPROF_SID_ROOT", "/var/cache/unwprof-tests/sid")
        run = ["chroot", root, "perl"]
    if not os.access(root + "/usr/bin/perl", os.X_OK):
        skip(f"{root}/usr/bin/perl is not there")
    core = root + perl_config(run, "archlibexp") + "/CORE"
    if not os.path.exists(core + "/perl.h"):
        skip(f"{core}/perl.h is not there (package libperl5.X, a dependency of perl)")
    dump = subprocess.run([args.unwprof, "dump-unwind", "--summary", "--json",
                           root + "/usr/bin/perl"], capture_output=True, text=True, check=True)
    pl = json.loads(dump.stdout).get("perl")
    if not pl:
        print(f"FAIL: dump-unwind does not read {root}/usr/bin/perl as a perl", file=sys.stderr)
        return 1
    consts = header_constants(src)
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/offsets.c", "w") as f:
            f.write(program(consts))
        flags = perl_config(run, "ccflags").split()
        subprocess.run(["cc", "-O2", "-w", f"-I{core}"] + flags + [f"{tmp}/offsets.c", "-o",
                                                            f"{tmp}/offsets"], check=True)
        out = subprocess.run([f"{tmp}/offsets"], capture_output=True, text=True,
                             check=True).stdout
    bad = []
    for ln in out.splitlines():
        kind, name, value = (ln.split() + [""])[:3]
        if kind == "field":
            ours = pl["offsets"].get(name)
            ok = ours == int(value)
            print(f"  {name}: headers {value}, unwprof {ours}", file=sys.stderr)
        elif kind == "same":
            ok = value == "1"
        elif kind == "const":
            ok = consts.get(name) == int(value)
        else:
            ok = pl["version"].startswith(name + ".")
            print(f"  headers of Perl {name}, the binary {pl['version']}", file=sys.stderr)
        if not ok:
            bad.append(ln)
    if bad:
        print(f"FAIL: {root}/usr/bin/perl: unwprof disagrees with {core}: {bad}",
              file=sys.stderr)
        return 1
    print(f"ok: {len(out.splitlines())} offsets and constants of Perl {pl['version']}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

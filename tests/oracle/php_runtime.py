#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What unwprof reads of a php, checked against its headers and its own code.

    php_runtime.py UNWPROF --host          Debian's /usr/bin/php8.2
    php_runtime.py UNWPROF --sid           the sid root's /usr/bin/php8.4

`unwprof dump-unwind --summary --json` gives the version and the offsets
unwprof reads the interpreter with (core/runtimes/php/phruntime.c).

- The headers, where the php's own are installed (php8.2-dev's
  /usr/include/php/API/: php.h, zend_globals.h, zend_compile.h,
  zend_types.h), for the API of the binary's build id: a C program that
  includes them, compiled with php-config's includes, prints each offset
  with offsetof: every one must equal unwprof's; so must the constants
  bpf/unwind_php.h says are the same in every version (function types,
  ZEND_CALL_TOP, ZEND_CALL_CODE), the headers' API must be the binary's,
  and each field the walk reads at a size must be of that size.
- The code, always (the sid root has no php8.4-dev): the interpreter's
  own zend_get_executed_filename_ex, disassembled (objdump), loads
  EG(current_execute_data) from executor_globals, a frame's func and
  prev_execute_data, and a function's op_array.filename: each offset must
  equal unwprof's, and executor_globals be the symbol unwprof found.

Exit 0 when all agree, 1 when one does not, 77 (skip) when the php is
absent (a failure under CI, where setup.sh installs it).
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
    "eg.current_execute_data": "offsetof(zend_executor_globals, current_execute_data)",
    "ex.opline": "offsetof(zend_execute_data, opline)",
    "ex.func": "offsetof(zend_execute_data, func)",
    "ex.call_info": "offsetof(zend_execute_data, This) + offsetof(zval, u1.type_info)",
    "ex.prev": "offsetof(zend_execute_data, prev_execute_data)",
    "fn.name": "offsetof(zend_function, common.function_name)",
    "fn.scope": "offsetof(zend_function, common.scope)",
    "fn.filename": "offsetof(zend_function, op_array.filename)",
    "fn.line_start": "offsetof(zend_function, op_array.line_start)",
    "fn.line_end": "offsetof(zend_function, op_array.line_end)",
    "op.lineno": "offsetof(zend_op, lineno)",
    "str.len": "offsetof(zend_string, len)",
    "str.val": "offsetof(zend_string, val)",
    "ce.name": "offsetof(zend_class_entry, name)",
}

# What the walk takes from one field for another's, or reads at a fixed size.
SAME = {
    "a function's type": ("offsetof(zend_function, type)", "0"),
    "an op_array's name": ("offsetof(zend_op_array, function_name)",
                           "offsetof(zend_function, common.function_name)"),
    "type's size": ("sizeof(((zend_function *)0)->type)", "1"),
    "lineno's size": ("sizeof(((zend_op *)0)->lineno)", "4"),
    "line_start's size": ("sizeof(((zend_op_array *)0)->line_start)", "4"),
    "type_info's size": ("sizeof(((zval *)0)->u1.type_info)", "4"),
    "len's size": ("sizeof(((zend_string *)0)->len)", "8"),
}

# bpf/unwind_php.h's constants, by the name PHP's headers give them.
CONSTANTS = ["INTERNAL_FUNCTION", "USER_FUNCTION", "EVAL_CODE", "CALL_CODE", "CALL_TOP"]


def header_constants(src):
    """The UNW_PH_ constants of bpf/unwind_php.h, by PHP's names (ZEND_ dropped)."""
    text = open(os.path.join(src, "bpf", "unwind_php.h")).read()
    consts = {m.group(1): int(m.group(2), 0)
              for m in re.finditer(r"#define UNW_PH_(\w+) (0x[0-9a-f]+|\d+)", text)}
    for m in re.finditer(r"#define UNW_PH_(\w+) \(1u << (\d+)\)", text):
        consts[m.group(1)] = 1 << int(m.group(2))
    return consts


def program(consts):
    lines = ['#include "php.h"', '#include "zend_globals.h"', "#include <stddef.h>",
             "#include <stdio.h>", f"#define UNW_PH_EX_READ_CHECK {consts['EX_READ']}",
             "int main(void)", "{"]
    for name, expr in FIELDS.items():
        lines.append(f'\tprintf("field %s %ld\\n", "{name}", (long)({expr}));')
    for name, (a, b) in SAME.items():
        lines.append(f'\tprintf("same %s %d\\n", "{name.replace(" ", "_")}", '
                     f'(int)(({a}) == ({b})));')
    lines.append('\tprintf("same prev_read %d\\n", (int)(offsetof(zend_execute_data, '
                 'prev_execute_data) + 8 <= UNW_PH_EX_READ_CHECK));')
    for c in CONSTANTS:
        lines.append(f'\tprintf("const %s %ld\\n", "{c}", (long)(ZEND_{c}));')
    lines.append('\tprintf("api %d\\n", ZEND_MODULE_API_NO);')
    lines += ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def skip(why):
    if os.environ.get("CI"):
        print(f"FAIL: {why}, and CI must run this test", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(SKIP)


def check_headers(ph, consts, include):
    """The offsets and constants of the headers under include against unwprof's: the
    lines that disagree."""
    flags = [f"-I{include}/{d}" for d in ("", "main", "Zend", "TSRM", "ext/date/lib")]
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/offsets.c", "w") as f:
            f.write(program(consts))
        subprocess.run(["cc", "-O2", "-w"] + flags + [f"{tmp}/offsets.c", "-o",
                                                       f"{tmp}/offsets"], check=True)
        out = subprocess.run([f"{tmp}/offsets"], capture_output=True, text=True,
                             check=True).stdout
    bad = []
    for ln in out.splitlines():
        kind, name, value = (ln.split() + [""])[:3]
        if kind == "field":
            ours = ph["offsets"].get(name)
            ok = ours == int(value)
            print(f"  {name}: headers {value}, unwprof {ours}", file=sys.stderr)
        elif kind == "same":
            ok = value == "1"
        elif kind == "const":
            ok = consts.get(name) == int(value)
        else:
            ok = ph["api"] == int(name)
            print(f"  headers of API {name}, the binary {ph['api']}", file=sys.stderr)
        if not ok:
            bad.append(ln)
    return bad


def symbol(elf, name):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", elf], capture_output=True, text=True,
                         check=True).stdout
    for ln in out.splitlines():
        f = ln.split()
        if len(f) >= 8 and f[7].split("@")[0] == name:
            return int(f[1], 16), int(f[2], 0)
    return None


def check_code(ph, elf):
    """zend_get_executed_filename_ex's loads against unwprof's offsets: the lines that
    disagree. Its loop: EG's fields from executor_globals (its override, then
    current_execute_data), a frame's func into another register, the function's type
    compared with 1, prev_execute_data, then the function's filename."""
    fn = symbol(elf, "zend_get_executed_filename_ex")
    eg = symbol(elf, "executor_globals")
    if not fn or not eg:
        return [f"{elf}: no zend_get_executed_filename_ex or executor_globals"]
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={fn[0]:#x}",
                          f"--stop-address={fn[0] + fn[1]:#x}", elf], capture_output=True,
                         text=True, check=True).stdout
    base = re.search(r"lea\s+0x[0-9a-f]+\(%rip\),(%r\w+)\s+# ([0-9a-f]+) <executor_globals",
                     dis)
    loads = re.findall(r"mov\s+0x([0-9a-f]+)\((%r\w+)\),(%r\w+)", dis)
    if not base or int(base.group(2), 16) != eg[0]:
        return [f"{elf}: zend_get_executed_filename_ex does not take executor_globals"]
    reg = base.group(1)
    from_eg = [int(o, 16) for o, r, _ in loads if r == reg]
    ex = next((d for o, r, d in loads if r == reg and int(o, 16) ==
               ph["offsets"]["eg.current_execute_data"]), None)
    found = {"eg.current_execute_data": ph["offsets"]["eg.current_execute_data"]
             if ex else from_eg}
    frame = [(i, int(o, 16), d) for i, (o, r, d) in enumerate(loads) if r == ex]
    func = next(((i, o, d) for i, o, d in frame if d != ex), None)
    found["ex.func"] = func[1] if func else None
    found["ex.prev"] = next((o for _, o, d in frame if d == ex), None)
    # the function's register may have held executor_globals before: its loads after func's
    found["fn.filename"] = next((int(o, 16) for o, r, _ in loads[func[0] + 1:]
                                 if r == func[2]), None) if func else None
    bad = []
    for name, value in found.items():
        print(f"  {name}: zend_get_executed_filename_ex {value}, unwprof "
              f"{ph['offsets'][name]}", file=sys.stderr)
        if value != ph["offsets"][name]:
            bad.append(f"{name} {value}")
    if int(ph["executor_globals"], 16) != eg[0]:
        bad.append(f"executor_globals {eg[0]:#x}")
    return bad


def main():
    p = argparse.ArgumentParser()
    p.add_argument("unwprof")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--host", action="store_true")
    g.add_argument("--sid", action="store_true")
    args = p.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root, php = "", "/usr/bin/php8.2"
    if args.sid:
        root = os.environ.get("UNWPROF_SID_ROOT", "/var/cache/unwprof-tests/sid")
        php = "/usr/bin/php8.4"
    elf = root + php
    if not os.access(elf, os.X_OK):
        skip(f"{elf} is not there")
    dump = subprocess.run([args.unwprof, "dump-unwind", "--summary", "--json", elf],
                          capture_output=True, text=True, check=True)
    ph = json.loads(dump.stdout).get("php")
    if not ph:
        print(f"FAIL: dump-unwind does not read {elf} as a php", file=sys.stderr)
        return 1
    consts = header_constants(src)
    bad = check_code(ph, elf)
    include = f"{root}/usr/include/php/{ph['api']}"
    checked = "its code"
    if os.path.exists(f"{include}/main/php.h"):
        bad += check_headers(ph, consts, include)
        checked += f" and {include}"
    elif not args.sid:
        skip(f"{include}/main/php.h is not there (package php{php[-3:]}-dev)")
    if bad:
        print(f"FAIL: {elf}: unwprof disagrees with {checked}: {bad}", file=sys.stderr)
        return 1
    print(f"ok: the offsets of PHP {ph['version']} agree with {checked}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What unwprof reads of a V8, checked against V8's own printer of its objects.

    v8_offsets.py UNWPROF --host     this machine's node (node 20, V8 11.3)
    v8_offsets.py UNWPROF --sid      the sid root's node (node 24, V8 13.6, libnode.so)

`unwprof dump-unwind --summary --json` gives the layout unwprof reads V8's
heap with (core/runtimes/v8/v8runtime.c: the v8dbg_ symbols, and the fields
their metadata lost, placed by V8's class layouts). A node run with
--allow-natives-syntax prints a function with %DebugPrint: its address, its
map's, its SharedFunctionInfo's and its BytecodeArray's, and stays alive;
its memory, read through /proc/PID/mem with unwprof's layout, must lead to
the same objects: the function's map and SharedFunctionInfo, a JSFunction's
instance type in the range unwprof takes, a SharedFunctionInfo's type,
its function data the BytecodeArray (a field the metadata lost in V8 12 and
later), its name "probe" (a string or its ScopeInfo's), its Script, whose
name is the file's path, and the BytecodeArray's source position table a
byte array (another field lost). The TurboFan code of a function that
inlines probe: its InstructionStream and back, where its
instructions start, its source position table and its deoptimization
data (fields the metadata lost), whose one inlined function is probe's.

Exit 0 when all agree, 1 when one does not, 77 (skip) when the node is
absent (a failure under CI, where setup.sh installs it).
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77
PROGRAM = """'use strict';
function probe(a, b) {
  return a + b;
}
function twice(a) {
  return probe(a, a) + probe(a, 1);
}
for (let i = 0; i < 10; i++) probe(i, i);
%DebugPrint(probe);
%PrepareFunctionForOptimization(twice);
for (let i = 0; i < 100; i++) twice(i);
%OptimizeFunctionOnNextCall(twice);
twice(3);
%DebugPrint(twice);
setTimeout(() => {}, 20000);
"""


def skip(why):
    if os.environ.get("UNWPROF_REQUIRE_BPF") == "1" or os.environ.get("CI"):
        print(f"FAIL: {why} (CI: setup.sh installs it)", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(SKIP)


class Mem:
    def __init__(self, pid):
        self.f = open(f"/proc/{pid}/mem", "rb")

    def read(self, addr, n):
        self.f.seek(addr)
        return self.f.read(n)

    def word(self, obj, off):
        return struct.unpack("<Q", self.read(obj - 1 + off, 8))[0]

    def u16(self, obj, off):
        return struct.unpack("<H", self.read(obj - 1 + off, 2))[0]

    def u32(self, obj, off):
        return struct.unpack("<I", self.read(obj - 1 + off, 4))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("unwprof")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--host", action="store_true")
    where.add_argument("--sid", action="store_true")
    args = ap.parse_args()

    if args.host:
        node = "/usr/bin/node"
        if not os.path.exists(node):
            skip(f"{node} is not installed (package nodejs)")
        elf, root, run = os.path.realpath(node), "", [node]
    else:
        root = os.environ.get("UNWPROF_SID_ROOT", "/var/cache/unwprof-tests/sid")
        libdir = os.path.join(root, "usr/lib/x86_64-linux-gnu")
        libs = sorted(f for f in os.listdir(libdir) if f.startswith("libnode.so.")) \
            if os.path.isdir(libdir) else []
        if not libs or not os.path.exists(os.path.join(root, "usr/bin/node")):
            skip(f"{root} has no node (./setup.sh test builds the sid root)")
        elf, run = os.path.join(libdir, libs[0]), ["chroot", root, "node"]

    out = subprocess.run([args.unwprof, "dump-unwind", "--summary", "--json", elf],
                         capture_output=True, text=True)
    if out.returncode != 0 or '"v8"' not in out.stdout:
        print(out.stderr, file=sys.stderr)
        print(f"FAIL: dump-unwind does not read {elf} as V8", file=sys.stderr)
        return 1
    v8 = json.loads(out.stdout)["v8"]
    lay = v8["layout"]
    print(f"V8 {v8['version']} of {elf}", file=sys.stderr)

    tmpdir = tempfile.mkdtemp(dir=os.path.join(root, "tmp") if root else None)
    path = os.path.join(tmpdir, "probe.js")
    with open(path, "w") as f:
        f.write(PROGRAM)
    inside = path[len(root):] if root else path
    proc = subprocess.Popen(run + ["--allow-natives-syntax", inside], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    printed = ""
    deadline = time.time() + 20
    while time.time() < deadline and printed.count("source code") < 2:
        line = proc.stdout.readline()
        if not line:
            break
        printed += line
    fails = 0
    try:
        want = {}
        for key, pat in [("function", r"DebugPrint: (0x[0-9a-f]+)"),
                         ("map", r"- map: (0x[0-9a-f]+)"),
                         ("shared", r"- shared_info: (0x[0-9a-f]+)"),
                         ("bytecode", r"- bytecode: (0x[0-9a-f]+)")]:
            m = re.search(pat, printed)
            if not m:
                print(printed, file=sys.stderr)
                print(f"FAIL: %DebugPrint printed no {key}", file=sys.stderr)
                return 1
            want[key] = int(m.group(1), 16)
        mem = Mem(proc.pid)

        def check(what, got, expect):
            nonlocal fails
            ok = got == expect if not callable(expect) else expect(got)
            print(f"  {'ok  ' if ok else 'FAIL'} {what}: {got:#x}" if isinstance(got, int)
                  else f"  {'ok  ' if ok else 'FAIL'} {what}: {got!r}", file=sys.stderr)
            fails += not ok

        def type_of(obj):
            return mem.u16(mem.word(obj, lay["HeapObject.map"]), lay["Map.instance_type"])

        def string(obj, depth=0):
            t = type_of(obj)
            if t >= lay["FirstNonstringType"] or depth > 8:
                return None
            repr_ = t & lay["StringRepresentationMask"]
            if repr_ == lay["ConsStringTag"]:
                first = string(mem.word(obj, lay["ConsString.first"]), depth + 1)
                second = string(mem.word(obj, lay["ConsString.second"]), depth + 1)
                return None if first is None or second is None else first + second
            if repr_ == lay["ThinStringTag"]:
                return string(mem.word(obj, lay["ThinString.actual"]), depth + 1)
            if repr_ != lay["SeqStringTag"]:
                return f"<a string of representation {repr_}>"
            n = mem.u32(obj, lay["String.length"])
            if t & lay["StringEncodingMask"] == lay["OneByteStringTag"]:
                return mem.read(obj - 1 + lay["SeqOneByteString.chars"], n).decode("latin-1")
            return mem.read(obj - 1 + lay["SeqTwoByteString.chars"], 2 * n).decode("utf-16-le")

        fn, sfi = want["function"], want["shared"]
        check("JSFunction's map", mem.word(fn, lay["HeapObject.map"]), want["map"])
        check("JSFunction's instance type", type_of(fn),
              lambda t: lay["type.JSFunction.first"] <= t <= lay["type.JSFunction.last"])
        check("JSFunction.shared", mem.word(fn, lay["JSFunction.shared"]), sfi)
        check("SharedFunctionInfo's instance type", type_of(sfi), lay["type.SharedFunctionInfo"])
        check("SharedFunctionInfo.function_data",
              mem.word(sfi, lay["SharedFunctionInfo.function_data"]), want["bytecode"])
        check("BytecodeArray's instance type", type_of(want["bytecode"]),
              lay["type.BytecodeArray"])
        positions = mem.word(want["bytecode"], lay["BytecodeArray.source_position_table"])
        check("BytecodeArray.source_position_table's instance type", type_of(positions),
              lambda t: t in (lay["type.ByteArray"], lay["type.TrustedByteArray"]))
        nos = mem.word(sfi, lay["SharedFunctionInfo.name_or_scope_info"])
        check("SharedFunctionInfo.name_or_scope_info's instance type", type_of(nos),
              lambda t: t == lay["type.ScopeInfo"] or t < lay["FirstNonstringType"])
        if type_of(nos) < lay["FirstNonstringType"]:
            check("the function's name", string(nos), "probe")
        script = mem.word(sfi, lay["SharedFunctionInfo.script"])
        check("SharedFunctionInfo.script's instance type", type_of(script),
              lay["type.Script"])
        check("Script.name", string(mem.word(script, lay["Script.name"])), inside)
        # compiled code: twice's TurboFan code, which inlines probe
        m = re.search(r"(0x[0-9a-f]+) <Code TURBOFAN", printed)
        if lay.get("Code.deoptimization_data", -1) > 0 and m:
            code = int(m.group(1), 16)
            check("Code's instance type", type_of(code), lay["type.Code"])
            stream = mem.word(code, lay["Code.instruction_stream"])
            check("Code.instruction_stream's instance type", type_of(stream),
                  lay["type.InstructionStream"])
            check("InstructionStream.code", mem.word(stream, lay["InstructionStream.code"]),
                  code)
            check("Code.instruction_start",
                  mem.word(code, lay["Code.instruction_start"]),
                  stream - 1 + lay["InstructionStream.instruction_start"])
            positions = mem.word(code, lay["Code.source_position_table"])
            check("Code.source_position_table's instance type", type_of(positions),
                  lambda t: t in (lay["type.ByteArray"], lay["type.TrustedByteArray"]))
            deopt = mem.word(code, lay["Code.deoptimization_data"])
            inlined = mem.word(deopt, 16 + 8 * lay["DeoptimizationData.inlined_function_count"])
            check("DeoptimizationData's inlined functions (probe)", inlined >> 32, 1)
            lits = mem.word(deopt, 16 + 8 * lay["DeoptimizationData.literal_array"])
            first = mem.word(lits, 16)
            # V8 11's literals are weak references: their tag's second bit set
            check("the inlined function's SharedFunctionInfo", first & ~2, sfi)
        elif lay.get("Code.deoptimization_data", -1) > 0:
            check("%DebugPrint printed twice's TurboFan code", 0, 1)
    finally:
        proc.kill()
        proc.wait()
        os.unlink(path)
        os.rmdir(tmpdir)
    if fails:
        print(f"FAIL: {fails} of unwprof's V8 offsets do not lead where V8's printer says",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-v8frames/: V8's heap as fuzz_v8frames.c reads it.

usage: make_v8frames_seeds.py [OUTDIR]   (default: corpus-v8frames next to this script)

Each seed is a SharedFunctionInfo's address, a frame's bytecode offset, the
layout's byte (0: node 20's V8 11.3, 1: node 24's V8 13.6), then memory from
0x10000 on holding, with that layout (fuzz_v8frames.c): maps with their
instance types, the SharedFunctionInfo with its name (a sequential string, a
cons string, a two-byte string, a ScopeInfo's), its Script (name
"/tmp/app.js" and its source) and its BytecodeArray's source position table.
Compiled code of node 24's layout (an InstructionStream, its Code, source
positions and deoptimization data) with a function inlined at the seed's pc.
Broken ones: a name longer than the memory, a cons string that is its own
part, a table of bytes that never end a number, no SharedFunctionInfo.
"""

import os
import struct
import sys

BASE = 0x10000
LAYOUTS = [
    dict(sfi_name=16, sfi_data=8, sfi_script=32, bytecode_data=54, positions=32, first_vars=3,
         sfi=262, script=167, scope=261, bytecode=191, byte_array=190),
    dict(sfi_name=24, sfi_data=8, sfi_script=40, bytecode_data=64, positions=24, first_vars=5,
         sfi=282, script=167, scope=280, bytecode=186, byte_array=196),
]
SOURCE = b"'use strict';\nfunction inner() {\n  work();\n}\n"


class Heap:
    def __init__(self):
        self.mem = bytearray(64)

    def alloc(self, size):
        at = len(self.mem)
        self.mem += bytes((size + 7) & ~7)
        return at

    def put(self, at, data):
        self.mem[at:at + len(data)] = data

    def obj(self, type_, size):
        m = self.alloc(16)
        self.put(m + 12, struct.pack("<H", type_))
        o = self.alloc(size)
        self.put(o, struct.pack("<Q", BASE + m + 1))
        return o

    def one_byte(self, s, length=None):
        o = self.obj(40, 16 + len(s))
        self.put(o + 12, struct.pack("<I", len(s) if length is None else length))
        self.put(o + 16, s)
        return o

    def two_byte(self, s):
        o = self.obj(32, 16 + 2 * len(s))
        self.put(o + 12, struct.pack("<I", len(s)))
        self.put(o + 16, s.decode().encode("utf-16-le"))
        return o

    def cons(self, a, b, length):
        o = self.obj(41, 32)
        self.put(o + 12, struct.pack("<I", length))
        self.put(o + 16, struct.pack("<QQ", tagged(a), tagged(b)))
        return o


def tagged(o):
    return BASE + o + 1


def smi(v):
    return v << 32


def vlq(v):
    u = (v << 1) ^ (v >> 63) if v >= 0 else ((v << 1) ^ -1) & ((1 << 64) - 1)
    out = bytearray()
    while True:
        b = u & 0x7f
        u >>= 7
        out.append(b | (0x80 if u else 0))
        if not u:
            return bytes(out)


def sfi(h, lay, name_ptr, table=None):
    s = h.obj(lay["sfi"], 48)
    script = h.obj(lay["script"], 64)
    bc = h.obj(lay["bytecode"], 72)
    fn = SOURCE.index(b"function")
    work = SOURCE.index(b"work")
    if table is None:
        table = vlq(1) + vlq((fn + 1) << 1) + vlq(5) + vlq((work - fn) << 1)
    t = h.obj(lay["byte_array"], 16 + len(table))
    h.put(t + 8, struct.pack("<Q", smi(len(table))))
    h.put(t + 16, table)
    h.put(s + lay["sfi_name"], struct.pack("<Q", name_ptr))
    h.put(s + lay["sfi_script"], struct.pack("<Q", tagged(script)))
    h.put(s + lay["sfi_data"], struct.pack("<Q", tagged(bc)))
    h.put(script + 16, struct.pack("<Q", tagged(h.one_byte(b"/tmp/app.js"))))
    h.put(script + 8, struct.pack("<Q", tagged(h.one_byte(SOURCE))))
    h.put(bc + lay["positions"], struct.pack("<Q", tagged(t)))
    return s


def scope(h, lay, name):
    o = h.obj(lay["scope"], 8 + 16 * 8)
    slots = [0] * 16
    slots[2] = smi(1)
    i = lay["first_vars"]
    slots[i] = tagged(h.one_byte(b"local"))
    slots[i + 1] = smi(0)
    slots[i + 2] = tagged(h.one_byte(name))
    slots[i + 3] = smi(SOURCE.index(b"function"))
    slots[i + 4] = smi(len(SOURCE) - 1)
    if lay["first_vars"] >= 5:
        slots[3], slots[4] = smi(SOURCE.index(b"function")), smi(len(SOURCE) - 1)
    h.put(o + 8, struct.pack("<16Q", *slots))
    return o


def seed(which, build, offset):
    h = Heap()
    lay = LAYOUTS[which]
    s = build(h, lay)
    head = struct.pack("<QIB", BASE + s if s is not None else 8, offset, which)
    return head + bytes(h.mem)


def looped(h, lay):
    c = h.cons(0, 0, 8)
    h.put(c + 16, struct.pack("<QQ", tagged(c), tagged(c)))
    return sfi(h, lay, tagged(c))


def compiled(h, lay):
    """Compiled code (node 24's layout) whose pc 0x10000 + 0x800 + 32 + 20 runs a function
    inlined into it, in a page of memory; the seed's offset word is that pc's low bits."""
    callee = sfi(h, lay, tagged(h.one_byte(b"callee")))
    code = h.obj(187, 64)
    deopt = h.obj(193, 16 + 10 * 8)
    lits = h.obj(199, 24)
    fn = SOURCE.index(b"function")
    table = vlq(1) + vlq((fn + 1) << 1) + vlq(16) + vlq(((8 + 1) << 1 | 1 << 31) - ((fn + 1) << 1))
    t = h.obj(196, 16 + len(table))
    inl = h.obj(196, 32)
    m = h.alloc(16)
    h.put(m + 12, struct.pack("<H", 192))
    # (the code's own function: the callee's SharedFunctionInfo serves)
    if len(h.mem) > 0x800:
        raise SystemExit("the seed's objects outgrew 0x800 bytes")
    # the whole page: the code is looked for a page at a time
    h.mem += bytes(0x1000 - len(h.mem))
    stream = 0x800
    h.put(stream, struct.pack("<QQ", BASE + m + 1, tagged(code)))
    h.put(code + 40, struct.pack("<Q", BASE + stream + 32))
    h.put(code + 56, struct.pack("<I", 64))
    h.put(code + 8, struct.pack("<QQ", tagged(deopt), tagged(t)))
    h.put(t + 8, struct.pack("<Q", smi(len(table))) + table)
    h.put(deopt + 8, struct.pack("<Q", smi(10)))
    h.put(deopt + 16 + 8, struct.pack("<Q", smi(1)))
    h.put(deopt + 16 + 24, struct.pack("<Q", tagged(lits)))
    h.put(deopt + 16 + 64, struct.pack("<Q", tagged(inl)))
    wrapper = h.obj(195, 16)
    h.put(deopt + 16 + 56, struct.pack("<Q", tagged(wrapper)))
    h.put(wrapper + 8, struct.pack("<Q", tagged(callee)))
    h.put(lits + 8, struct.pack("<QQ", smi(1), tagged(callee)))
    h.put(inl + 8, struct.pack("<Q", smi(16)) + struct.pack("<qiI", (50 + 1) << 1, 0, 0))
    return callee


SEEDS = {
    "named": lambda h, lay: sfi(h, lay, tagged(h.one_byte(b"inner"))),
    "cons": lambda h, lay: sfi(h, lay, tagged(h.cons(h.one_byte(b"Foo."), h.one_byte(b"bar"), 7))),
    "two-byte": lambda h, lay: sfi(h, lay, tagged(h.two_byte(b"twoByte"))),
    "scope": lambda h, lay: sfi(h, lay, tagged(scope(h, lay, b"scoped"))),
    "anonymous": lambda h, lay: sfi(h, lay, tagged(h.one_byte(b""))),
    "long-name": lambda h, lay: sfi(h, lay, tagged(h.one_byte(b"x", length=1 << 20))),
    "cons-loop": looped,
    "table-unended": lambda h, lay: sfi(h, lay, tagged(h.one_byte(b"t")), table=b"\xff" * 12),
    "none": lambda h, lay: None,
}
# node 24's layout only, the pc's low bits as the offset
CODE_SEEDS = {"compiled": (compiled, 0x800 + 32 + 20)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "corpus-v8frames")
    os.makedirs(out, exist_ok=True)
    for which in (0, 1):
        for name, build in SEEDS.items():
            for offset in (0, LAYOUTS[which]["bytecode_data"] - 1 + 5):
                path = os.path.join(out, f"v{20 if which == 0 else 24}-{name}-{offset}")
                with open(path, "wb") as f:
                    f.write(seed(which, build, offset))
    for name, (build, offset) in CODE_SEEDS.items():
        with open(os.path.join(out, f"v24-{name}"), "wb") as f:
            f.write(seed(1, build, offset))


if __name__ == "__main__":
    main()

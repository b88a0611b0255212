#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-perfmap/ and corpus-jitdump/: JIT maps as runtimes write them, and broken ones.

usage: make_jit_seeds.py [OUTDIR]   (default: this script's directory)

Perf maps: node's (--perf-basic-prof), the JVM's (jcmd Compiler.perfmap,
-XX:+DumpPerfMapAtExit: "0x"-prefixed, names with spaces), CRLF lines, blank
lines, overlapping entries, then garbage lines, sizes of 0 and past 64 MiB,
an address that wraps, a NUL inside a line, a last line cut short.
Jitdumps: the records of perf's jitdump specification (code loads, a move,
debug and unwinding information, an unknown record, the close), and the
same cut short, with the other byte order, with flags the specification
does not define, a record smaller than its
header, a record longer than the file, a name without its NUL, code that
does not fit its record. Written from the specification, independently of
core/symbols/jitdump.c and of the unit test's builder.
"""

import os
import struct
import sys

NODE = (b"3ef414a0c0 5c LazyCompile:~main /app/a.js:1\n"
        b"3ef414a140 1e0 LazyCompile:*fib /app/a.js:5\n"
        b"3ef414a400 40 Builtin:ArgumentsAdaptorTrampoline\n")
JVM = (b"0x00007f3c2d0e5a20 0x0000000000000128 long Spin.work(int)\n"
       b"0x00007f3c2d0e5b80 0x0000000000000020 java.lang.Object "
       b"java.util.HashMap.get(java.lang.Object)\n"
       b"0x00007f3c2d0e6000 0x0000000000000400 Interpreter\n")

PERF_MAPS = {
    "node": NODE,
    "jvm": JVM,
    "crlf-blank": NODE.replace(b"\n", b"\r\n") + b"\n\n" + JVM,
    "overlap": b"1000 100 old\n1080 10 new\n2000 10 a\n2000 10 b\n3008 10 c\n3000 10 d\n",
    "garbage": b"not a line\n2000 10\n2000\n0x 10 x\n0 10 zero\n10000000000000000 10 big\n",
    "sizes": b"3000 0 empty\n4000 4000001 huge\nfffffffffffffff0 20 wraps\n5000 10 ok\n",
    "nul": b"5000 10 with\0nul\n6000 10 fine\n",
    "cut": JVM + b"0x00007f3c2d0e7000 0x10 cut sh",
    "tabs": b"7f3c2d0f0000\t10\tStub:tabs   \n",
    "empty": b"",
}

MAGIC = 0x4A695444


def header(magic=MAGIC, version=1, size=40, order="<", flags=0):
    return (struct.pack(order + "IIIIIIQQ", magic, version, size, 62, 0, 4242, 1, flags)
            + b"\0" * (size - 40))


def record(rid, body, size=None, order="<"):
    return struct.pack(order + "IIQ", rid, 16 + len(body) if size is None else size, 2) + body


def load(addr, size, name, code=None, order="<"):
    code = b"\xc3" * size if code is None else code
    return record(0, struct.pack(order + "IIQQQQ", 4242, 4243, addr, addr, size, 7)
                  + name + b"\0" + code, order=order)


def move(old, new, size):
    return record(1, struct.pack("<IIQQQQQ", 4242, 4243, new, old, new, size, 7))


def good():
    return (header() + load(0x1000, 0x20, b"py::fib:/app/fib.py")
            + record(2, struct.pack("<QQ", 0x1000, 1) + struct.pack("<QII", 0x1004, 3, 0) + b"fib.py\0")
            + record(4, struct.pack("<QQQ", 8, 0, 8) + b"\0" * 8)
            + record(99, b"\0" * 4)
            + load(0x2000, 0x10, b"wasm[0]::function[3]")
            + move(0x2000, 0x5000, 0x10)
            + record(3, b"")
            + load(0x4000, 0x10, b"after the close"))


JITDUMPS = {
    "good": good(),
    "cut": good()[:-7],
    "header-only": header(),
    "long-header": header(size=64) + load(0x1000, 0x10, b"f"),
    "swapped": header(order=">") + load(0x1000, 0x10, b"f", order=">"),
    "version2": header(version=2) + load(0x1000, 0x10, b"f"),
    "reserved-flags": header(flags=2) + load(0x1000, 0x10, b"f"),
    "short-header": header()[:12],
    "tiny-record": header() + record(0, b"", size=8) + load(0x1000, 0x10, b"f"),
    "long-record": header() + record(0, b"\0" * 8, size=4096),
    "no-nul": header() + record(0, struct.pack("<IIQQQQ", 1, 1, 0x1000, 0x1000, 0, 0) + b"abc")
              + load(0x2000, 0x10, b"next"),
    "code-too-big": header() + load(0x3000, 0x1000, b"lies", code=b""),
    "move-unknown": header() + move(0x9000, 0x6000, 0x10),
    "overlap": header() + load(0x1000, 0x100, b"old") + load(0x1080, 0x10, b"new"),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for corpus, seeds in (("corpus-perfmap", PERF_MAPS), ("corpus-jitdump", JITDUMPS)):
        os.makedirs(os.path.join(out, corpus), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(out, corpus, "seed-" + name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-phframes/: a php's memory as fuzz_phframes.c reads it.

usage: make_phframes_seeds.py [OUTDIR]   (default: corpus-phframes next to this script)

Each seed is a frame's first word, the function's tag, the version's byte,
then memory from 0x10000 on holding, with 8.2's or 8.4's offsets
(core/runtimes/php/phruntime.c): a user function "burn" of lines 10 to 20
in "/tmp/x.php", a method "cmp" of a class "Sorter", a file's code (no
name), and a php's strings ("X-Powered-By: PHP/8.2.36", "API20220829,NTS").
Seeds: the function, the method, the script's code, an include's, an
eval's, 8.4's, and broken ones (a name longer than the memory, a class
whose name is none, a function of the internal type, another function's
tag, lines out of order, a file that is not printable).
"""

import os
import struct
import sys

BASE = 0x10000
FN, NAME, CE, CE_NAME, FILE, STRINGS, END = 0x000, 0x100, 0x180, 0x200, 0x280, 0x300, 0x400
FILENAME = {0: 152, 1: 168}  # op_array.filename: 8.2, 8.4; line_start and line_end after it


def code_tag(p):
    return ((p >> 4) ^ (p >> 20) ^ (p >> 36)) & 0xffff


def put(mem, off, data):
    mem[off:off + len(data)] = data


def zstr(mem, at, s, length=None):
    put(mem, at, struct.pack("<IIQQ", 1, 6, 0, len(s) if length is None else length) + s + b"\0")


def memory(version=0, ftype=2, name=True, scope=False, name_len=None, lines=(10, 20),
           file=b"/tmp/x.php"):
    mem = bytearray(END)
    put(mem, FN, struct.pack("<BBBBI", ftype, 0, 0, 0, 0))
    put(mem, FN + 8, struct.pack("<QQ", BASE + NAME if name else 0, BASE + CE if scope else 0))
    put(mem, FN + FILENAME[version], struct.pack("<QII", BASE + FILE, *lines))
    zstr(mem, NAME, b"cmp" if scope else b"burn", name_len)
    put(mem, CE + 8, struct.pack("<Q", BASE + CE_NAME))
    zstr(mem, CE_NAME, b"Sorter")
    zstr(mem, FILE, file)
    put(mem, STRINGS, b"\0X-Powered-By: PHP/8.2.36\0API420220829,NTS\0API20220829,NTS\0")
    return mem


def seed(kind, mem, version=0, tag=None):
    if tag is None:
        tag = code_tag(BASE + (NAME if kind == 0 else FILE))
    return struct.pack("<QHB", kind << 48 | (BASE + FN), tag, version) + bytes(mem)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "corpus-phframes")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "seed-function": seed(0, memory()),
        "seed-method": seed(0, memory(scope=True)),
        "seed-function-84": seed(0, memory(version=1), version=1),
        "seed-main": seed(1, memory(name=False)),
        "seed-include": seed(2, memory(name=False)),
        "seed-eval": seed(3, memory(ftype=4, name=False)),
        "seed-broken-name-long": seed(0, memory(name_len=1 << 20)),
        "seed-broken-internal": seed(0, memory(ftype=1)),
        "seed-broken-tag": seed(0, memory(), tag=0x1234),
        "seed-broken-lines": seed(0, memory(lines=(20, 10))),
        "seed-broken-file": seed(0, memory(file=b"/tmp/\x01.php")),
        "seed-broken-kind": seed(9, memory()),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

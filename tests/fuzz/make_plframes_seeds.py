#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-plframes/: a perl's memory as fuzz_plframes.c reads it.

usage: make_plframes_seeds.py [OUTDIR]   (default: corpus-plframes next to this script)

Each seed is a frame's first word, its COP and tag, the version's byte, then
memory from 0x10000 on holding, with 5.36's offsets (core/runtimes/perl/
plruntime.c): a GV with its GP, its name's HEK ("foo") and its stash (an HV
with its aux struct, named "main"), a CV with a name HEK and no GV (a sub of
the stash, and a lexical one), a COP of line 42 in "/tmp/x.pl". Seeds: the
sub by its GV, by its CV, lexical, an eval, a sort BLOCK, the main program,
and broken ones (a HEK longer than the memory, a stash without its aux
struct, a GV that is no GV, a file without its NUL, another COP's tag).
"""

import os
import struct
import sys

BASE = 0x10000
GV, GV_BODY, HEK, STASH, STASH_BODY, STASH_HEK, COP, FILE, CV, CV_BODY, END = (
    0x000, 0x040, 0x100, 0x180, 0x1c0, 0x240, 0x300, 0x380, 0x400, 0x440, 0x500)


def code_tag(p):
    return ((p >> 4) ^ (p >> 20) ^ (p >> 36)) & 0xffff


def put(mem, off, data):
    mem[off:off + len(data)] = data


def sv(mem, at, body, flags, u=0):
    put(mem, at, struct.pack("<QIIQ", BASE + body, 1, flags, u))


def hek(mem, at, key, length=None):
    put(mem, at, struct.pack("<Ii", 0, len(key) if length is None else length) + key + b"\0\0")


def memory(file=b"/tmp/x.pl\0", stash_flags=12 | 0x02000000, gv_flags=9 | 0x8000,
           hek_len=None):
    mem = bytearray(END)
    sv(mem, GV, GV_BODY, gv_flags)
    put(mem, GV_BODY + 32, struct.pack("<QQ", BASE + HEK, BASE + STASH))
    hek(mem, HEK, b"foo", hek_len)
    sv(mem, STASH, STASH_BODY, stash_flags)
    put(mem, STASH_BODY + 32, struct.pack("<Q", BASE + STASH_HEK))
    put(mem, STASH_BODY + 32 + 28, struct.pack("<i", 0))
    hek(mem, STASH_HEK, b"main")
    put(mem, COP + 36, struct.pack("<I", 42))
    put(mem, COP + 48, struct.pack("<Q", BASE + FILE))
    put(mem, FILE, file)
    sv(mem, CV, CV_BODY, 13)
    put(mem, CV_BODY + 32, struct.pack("<Q", BASE + STASH))
    put(mem, CV_BODY + 56, struct.pack("<Q", BASE + HEK))
    put(mem, CV_BODY + 92, struct.pack("<I", 0x8000))
    return mem


def seed(kind, value, mem, tag=None, version=0):
    cop = BASE + COP
    if tag is None:
        tag = (code_tag(BASE + FILE) ^ 42) & 0xffff
    what = kind << 48 | value
    return struct.pack("<QQHB", what, cop, tag, version) + bytes(mem)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "corpus-plframes")
    os.makedirs(out, exist_ok=True)
    lexical = memory()
    put(lexical, CV_BODY + 92, struct.pack("<I", 0x18000))
    seeds = {
        "seed-sub-gv": seed(0, BASE + GV, memory()),
        "seed-sub-named-cv": seed(1, BASE + CV, memory()),
        "seed-sub-lexical": seed(1, BASE + CV, lexical),
        "seed-eval-542": seed(2, 352, memory(), version=1),
        "seed-require-536": seed(2, 342, memory()),
        "seed-sort": seed(3, 0, memory()),
        "seed-main": seed(4, 0, memory()),
        "seed-hek-too-long": seed(0, BASE + GV, memory(hek_len=0x7fffffff)),
        "seed-stash-without-aux": seed(0, BASE + GV, memory(stash_flags=12)),
        "seed-gv-not-gv": seed(0, BASE + GV, memory(gv_flags=13)),
        "seed-file-without-nul": seed(4, 0, memory(file=b"/tmp/x.pl" * 20)),
        "seed-other-cop": seed(4, 0, memory(), tag=1),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

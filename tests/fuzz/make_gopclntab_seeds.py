#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-gopclntab/: hand-made Go pclntab function tables, raw and in ELF files.

usage: make_gopclntab_seeds.py [OUTDIR]   (default: corpus-gopclntab next to this script)

Raw tables of every format the reader knows (Go 1.2, 1.16, 1.18, 1.20; both
byte orders; 4- and 8-byte pointers), each function with its SP deltas (a
pcsp table) and runtime.goexit flagged TOPFRAME, a few broken ones (cut
short, a huge function count, unsorted; SP deltas that lie: past the
function's end, not whole words, pushed at the entry, a varint that never
ends, an offset past the table), and small ELF64 files that hold a table in
.gopclntab, in .data.rel.ro.gopclntab, or inside .data.rel.ro of a Go file,
with the text start in the header, 0, or after C code at the start of .text.
The layout follows Go's runtime/symtab.go and debug/gosym, written from them
independently of core/elf/gopclntab.c and of the unit test's builder.
"""

import os
import struct
import sys

TEXT = 0x401000
FUNCS = [(0x000, "main.main"), (0x060, "main.(*T).String"), (0x100, "runtime.goexit")]
END = 0x180
MAGIC = {"1.2": 0xFFFFFFFB, "1.16": 0xFFFFFFFA, "1.18": 0xFFFFFFF0, "1.20": 0xFFFFFFF1}
# A _func's flag byte after its entry field (1.17+; 1.16's is padding), and TOPFRAME.
FLAG_AT = {"1.16": 33, "1.18": 33, "1.20": 37}
TOPFRAME = 1
# SP deltas of each function as (pc delta, SP delta) runs: push, sub, the body, add, pop.
RUNS = [[(1, 0), (4, 8), (0x40, 40), (1, 8), (1, 0)], [(0x20, 0), (0x10, 16)], [(1, 0)]]


def varint(v):
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def pcsp(runs):
    """A pc-value table, as Go's linker writes it: zigzag value deltas from -1, pc deltas."""
    out, val = b"", -1
    for pcd, delta in runs:
        d = delta - val
        out += varint((d << 1) ^ (d >> 63) if d >= 0 else ((-d - 1) << 1) | 1) + varint(pcd)
        val = delta
    return out + b"\0"


def pctab(runs):
    """The pc tables: a 0 first (offset 0 means none), then each function's; their offsets."""
    blob, offs = b"\0", []
    for r in runs:
        offs.append(len(blob))
        blob += pcsp(r)
    return pad8(blob), offs


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def table(version, big=False, ptr=8, text=TEXT, funcs=FUNCS, nfunc=None, runs=RUNS,
          pcsp_offs=None):
    """A pclntab: header, names, functab (pairs and the end pc), _func records, pc tables."""
    e = ">" if big else "<"
    word = e + ("I" if ptr == 4 else "Q")
    relative = version in ("1.18", "1.20")
    field = e + "I" if relative else word
    fsize = struct.calcsize(field)
    n = len(funcs) if nfunc is None else nfunc
    tabs, offs = pctab(runs)
    offs = pcsp_offs or offs

    def entry(off):
        return off if relative else TEXT + off

    names, name_off = b"", []
    for _, name in funcs:
        name_off.append(len(names))
        names += name.encode() + b"\0"

    def record(i, nameoff, tabs_at=0):
        """entry, nameoff, args, deferreturn, pcsp, then zeros up to the flag and past it."""
        r = bytearray(struct.pack(field, entry(funcs[i][0])) + struct.pack(e + "I", nameoff) +
                      b"\0" * 8 + struct.pack(e + "I", tabs_at + offs[i] if i < len(offs) else 0)
                      + b"\0" * 28)
        if funcs[i][1] == "runtime.goexit" and version in FLAG_AT:
            r[fsize + FLAG_AT[version]] = TOPFRAME
        return pad8(bytes(r))
    rsize = len(record(0, 0))
    head = struct.pack(e + "I", MAGIC[version]) + bytes([0, 0, 1, ptr])
    if version == "1.2":
        ft_off = 8 + ptr
        rec_off = ft_off + len(pad8(b"\0" * ((2 * len(funcs) + 1) * fsize + 4)))
        names_off = rec_off + rsize * len(funcs)
        ft = b"".join(struct.pack(field, entry(off)) + struct.pack(field, rec_off + i * rsize)
                      for i, (off, _) in enumerate(funcs))
        ft = pad8(ft + struct.pack(field, entry(END)) + struct.pack(e + "I", 0))
        tabs_at = names_off + len(pad8(names))
        recs = b"".join(record(i, names_off + name_off[i], tabs_at) for i in range(len(funcs)))
        return head + struct.pack(word, n) + ft + recs + pad8(names) + tabs
    words = 8 if relative else 7
    names_off = len(pad8(b"\0" * (8 + words * ptr)))
    pcln = names_off + len(pad8(names))
    ft_len = len(pad8(b"\0" * ((2 * len(funcs) + 1) * fsize)))
    ft = b"".join(struct.pack(field, entry(off)) + struct.pack(field, ft_len + i * rsize)
                  for i, (off, _) in enumerate(funcs))
    ft = pad8(ft + struct.pack(field, entry(END)))
    recs = b"".join(record(i, name_off[i]) for i in range(len(funcs)))
    tabs_at = pcln + len(ft) + len(recs)
    hdr_words = [n, 0] + ([text] if relative else []) + [names_off] + [pcln] * 2 + [tabs_at, pcln]
    header = pad8(head + b"".join(struct.pack(word, w) for w in hdr_words))
    return header + pad8(names) + ft + recs + tabs


def elf(sections):
    """An ELF64 x86_64 file of (name, type, flags, addr, data) sections, no program headers."""
    body, shdrs, shstr = b"", [b"\0" * 64], b"\0"
    for name, typ, flags, addr, data in sections + [(".shstrtab", 3, 0, 0, None)]:
        if data is None:
            data = shstr + name.encode() + b"\0"
        off = 64 + len(pad8(body))
        body = pad8(body) + data
        shdrs.append(struct.pack("<IIQQQQIIQQ", len(shstr), typ, flags, addr, off, len(data),
                                 0, 0, 8, 0))
        shstr += name.encode() + b"\0"
    shoff = 64 + len(pad8(body))
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(shdrs),
                        len(shdrs) - 1))
    return ehdr + pad8(body) + b"".join(shdrs)


def text(addr=TEXT, size=0x200):
    return (".text", 1, 6, addr, b"\xcc" * size)


def data(name, contents):
    return (name, 1, 2, 0x600000, contents)


def seeds():
    for version in MAGIC:
        for big, ptr in ((False, 8), (True, 8), (False, 4)):
            yield "raw-%s-%s%d" % (version, "be" if big else "le", ptr * 8), table(version, big, ptr)
    t = table("1.18")
    yield "raw-1.18-cut", t[:len(t) - 40]
    yield "raw-1.18-huge-count", table("1.18", nfunc=1 << 40)
    yield "raw-1.2-huge-count", table("1.2", nfunc=(1 << 61) + 1)
    yield "raw-1.18-unsorted", table("1.18", funcs=[FUNCS[1], FUNCS[0], FUNCS[2]])
    yield "raw-1.16-one-more", table("1.16", nfunc=len(FUNCS) + 1)
    # SP deltas that lie, one function each; the others still hold.
    lies = {
        "past-end": [RUNS[0], [(0x20, 0), (0x200, 16)], RUNS[2]],
        "half-word": [RUNS[0], [(0x20, 0), (0x10, 12)], RUNS[2]],
        "pushed-at-entry": [[(1, 8), (4, 16)], RUNS[1], RUNS[2]],
        "negative": [RUNS[0], [(0x20, 0), (0x10, -8)], RUNS[2]],
    }
    for name, runs in lies.items():
        yield "raw-1.18-sp-" + name, table("1.18", runs=runs)
    yield "raw-1.20-sp-offset-past-end", table("1.20", pcsp_offs=[1, 1 << 30, 1])
    t20 = table("1.20")
    yield "raw-1.20-sp-endless-varint", t20[:-8] + b"\xff" * 8
    yield "raw-1.2-sp-cut", table("1.2")[:-4]
    yield "elf-gopclntab", elf([text(), data(".gopclntab", t)])
    yield "elf-pie-section", elf([text(), data(".data.rel.ro.gopclntab", t)])
    yield "elf-text-start-0", elf([text(), data(".gopclntab", table("1.20", text=0))])
    yield "elf-cgo-text", elf([text(TEXT - 0x100, 0x300), data(".gopclntab", t)])
    yield "elf-relro", elf([text(), data(".data.rel.ro", b"\0" * 40 + t),
                            data(".go.buildinfo", b"\xff Go buildinf:")])
    yield "elf-relro-not-go", elf([text(), data(".data.rel.ro", b"\0" * 40 + t)])
    yield "elf-outside-text", elf([text(0x500000), data(".gopclntab", table("1.16"))])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "corpus-gopclntab")
    os.makedirs(out, exist_ok=True)
    for name, contents in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(contents)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-gopclntab/: hand-made Go pclntab function tables, raw and in ELF files.

usage: make_gopclntab_seeds.py [OUTDIR]   (default: corpus-gopclntab next to this script)

Raw tables of every format the reader knows (Go 1.2, 1.16, 1.18, 1.20; both
byte orders; 4- and 8-byte pointers), a few broken ones (cut short, a huge
function count, unsorted), and small ELF64 files that hold a table in
.gopclntab, in .data.rel.ro.gopclntab, or inside .data.rel.ro of a Go file,
with the text start in the header, 0, or after C code at the start of .text.
The layout follows Go's runtime/symtab.go and debug/gosym, written from them
independently of core/elf/gopclntab.c and of the unit test's builder.
"""

import os
import struct
import sys

TEXT = 0x401000
FUNCS = [(0x000, "main.main"), (0x060, "main.(*T).String"), (0x100, "runtime.goexit.abi0")]
END = 0x180
MAGIC = {"1.2": 0xFFFFFFFB, "1.16": 0xFFFFFFFA, "1.18": 0xFFFFFFF0, "1.20": 0xFFFFFFF1}


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def table(version, big=False, ptr=8, text=TEXT, funcs=FUNCS, nfunc=None):
    """A pclntab: header, names, functab (pairs and the end pc), _func records."""
    e = ">" if big else "<"
    word = e + ("I" if ptr == 4 else "Q")
    relative = version in ("1.18", "1.20")
    field = e + "I" if relative else word
    fsize = struct.calcsize(field)
    n = len(funcs) if nfunc is None else nfunc

    def entry(off):
        return off if relative else TEXT + off

    names, name_off = b"", []
    for _, name in funcs:
        name_off.append(len(names))
        names += name.encode() + b"\0"
    record = lambda i, nameoff: pad8(struct.pack(field, entry(funcs[i][0])) +
                                     struct.pack(e + "I", nameoff) + b"\0" * 32)
    rsize = len(record(0, 0))
    head = struct.pack(e + "I", MAGIC[version]) + bytes([0, 0, 1, ptr])
    if version == "1.2":
        ft_off = 8 + ptr
        rec_off = ft_off + len(pad8(b"\0" * ((2 * len(funcs) + 1) * fsize + 4)))
        names_off = rec_off + rsize * len(funcs)
        ft = b"".join(struct.pack(field, entry(off)) + struct.pack(field, rec_off + i * rsize)
                      for i, (off, _) in enumerate(funcs))
        ft = pad8(ft + struct.pack(field, entry(END)) + struct.pack(e + "I", 0))
        recs = b"".join(record(i, names_off + name_off[i]) for i in range(len(funcs)))
        return head + struct.pack(word, n) + ft + recs + names
    words = 8 if relative else 7
    names_off = len(pad8(b"\0" * (8 + words * ptr)))
    pcln = names_off + len(pad8(names))
    ft_len = len(pad8(b"\0" * ((2 * len(funcs) + 1) * fsize)))
    ft = b"".join(struct.pack(field, entry(off)) + struct.pack(field, ft_len + i * rsize)
                  for i, (off, _) in enumerate(funcs))
    ft = pad8(ft + struct.pack(field, entry(END)))
    recs = b"".join(record(i, name_off[i]) for i in range(len(funcs)))
    hdr_words = [n, 0] + ([text] if relative else []) + [names_off] + [pcln] * 4
    header = pad8(head + b"".join(struct.pack(word, w) for w in hdr_words))
    return header + pad8(names) + ft + recs


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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the fuzz corpus: tiny hand-made ELF files plus stripped fixtures.

usage: tests/fuzz/make_seeds.py [OUTDIR]   (default: tests/fuzz/corpus)

The hand-made files hold only an ELF header, one PT_LOAD, a few bytes of
.text and the CFI sections, so each input is a few hundred bytes and every
mutation lands in something the parser reads. Between them they use every
rule kind of the table: CFA on rsp and rbp, on r10 (DRAP), the PLT
expression, *(rbp-8), *(rsp+160), rbp saved at CFA-16 and at rbp+0,
remember/restore state, an undefined return address, .debug_frame versions
1, 3 and 4, aarch64, and a few broken variants. The fixture copies (stripped
of symbols) add what gcc and the linker really emit.
"""

import os
import shutil
import struct
import subprocess
import sys

EM_X86_64, EM_AARCH64 = 62, 183
ET_EXEC, ET_DYN = 2, 3
SHT_PROGBITS, SHT_STRTAB = 1, 3
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


def pad(b, align, fill=b"\0"):
    return b + fill * (-len(b) % align)


def elf(machine, etype, sections, text_size=0x180):
    """sections: [(name, type, flags, data)]; .text comes first, at its file offset."""
    ehdr_size, phdr_size = 64, 56
    off = ehdr_size + phdr_size
    layout = []
    blob = bytearray()
    allsecs = [(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, b"\xc3" * text_size)] + sections
    for name, typ, flags, data in allsecs:
        start = off + len(blob)
        start += -start % 8
        blob += b"\0" * (start - off - len(blob))
        layout.append((name, typ, flags, start, data))
        blob += data
    names = b"\0" + b"".join(n.encode() + b"\0" for n, *_ in layout) + b".shstrtab\0"
    shstr_off = off + len(blob)
    blob += names
    shoff = off + len(blob)
    shoff += -shoff % 8
    blob += b"\0" * (shoff - off - len(blob))
    load_end = shstr_off
    shdrs = [b"\0" * 64]
    name_pos = 1
    for name, typ, flags, start, data in layout:
        addr = start if flags & SHF_ALLOC else 0
        shdrs.append(struct.pack("<IIQQQQIIQQ", name_pos, typ, flags, addr, start, len(data),
                                 0, 0, 8 if name != ".text" else 16, 0))
        name_pos += len(name) + 1
    shdrs.append(struct.pack("<IIQQQQIIQQ", name_pos, SHT_STRTAB, 0, 0, shstr_off, len(names),
                             0, 0, 1, 0))
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", etype, machine, 1, layout[0][3],
                               ehdr_size, shoff, 0, ehdr_size, phdr_size, 1, 64,
                               len(shdrs), len(shdrs) - 1)
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, load_end, load_end, 0x1000)
    return ehdr + phdr + bytes(blob) + b"".join(shdrs), layout[0][3]


# Call-frame instructions.
def advance(n):
    return bytes([0x40 | n]) if n < 64 else b"\x02" + bytes([n])


def def_cfa(reg, off):
    return b"\x0c" + uleb(reg) + uleb(off)


def def_cfa_offset(off):
    return b"\x0e" + uleb(off)


def def_cfa_register(reg):
    return b"\x0d" + uleb(reg)


def offset(reg, factored):
    return bytes([0x80 | reg]) + uleb(factored) if reg < 64 else b"\x05" + uleb(reg) + uleb(factored)


def def_cfa_expr(expr):
    return b"\x0f" + uleb(len(expr)) + expr


def expression(reg, expr):
    return b"\x10" + uleb(reg) + uleb(len(expr)) + expr


def undefined(reg):
    return b"\x07" + uleb(reg)


REMEMBER, RESTORE = b"\x0a", b"\x0b"


def breg(reg, off):
    return bytes([0x70 + reg]) + sleb(off)


DEREF = b"\x06"
PLT_EXPR = breg(7, 8) + breg(16, 0) + b"\x3f\x1a\x3b\x2a\x33\x24\x22"


def record(content):
    """A CFI record: its length, then content padded with DW_CFA_nop to 8 bytes."""
    content += b"\0" * ((4 - len(content)) % 8)
    return struct.pack("<I", len(content)) + content


def eh_frame(sec_addr, fdes, cie_insns, code_align=1, data_align=-8, ra=16, aug=b"zR"):
    """An .eh_frame with one CIE (zR: pcrel sdata4 pointers; zRS: signal frames too) and
    fdes [(pc, len, insns)]."""
    out = bytearray(record(struct.pack("<I", 0) + b"\x01" + aug + b"\0" + uleb(code_align) +
                           sleb(data_align) + uleb(ra) + uleb(1) + b"\x1b" + cie_insns))
    for pc, length, insns in fdes:
        start = len(out)
        field = sec_addr + start + 8
        out += record(struct.pack("<Iii", start + 4, pc - field, length) + uleb(0) + insns)
    return bytes(out) + b"\0\0\0\0"


def debug_frame(version, fdes, cie_insns, ra=16, data_align=-8):
    """A .debug_frame with one CIE of the given version and absolute 8-byte addresses."""
    cie = struct.pack("<I", 0xFFFFFFFF) + bytes([version]) + b"\0"
    if version >= 4:
        cie += b"\x08\x00"
    cie += uleb(1) + sleb(data_align) + (bytes([ra]) if version == 1 else uleb(ra))
    out = bytearray(record(cie + cie_insns))
    for pc, length, insns in fdes:
        out += record(struct.pack("<IQQ", 0, pc, length) + insns)
    return bytes(out)


X86_CIE = def_cfa(7, 8) + offset(16, 1)


def x86_fdes(t):
    return [
        # push rbp; mov rbp,rsp: CFA rsp+16, then rbp+16, rbp at CFA-16.
        (t, 0x20, advance(1) + def_cfa_offset(16) + offset(6, 2) + advance(3) +
         def_cfa_register(6) + advance(0x18) + def_cfa(7, 8)),
        # The lazy-binding PLT.
        (t + 0x20, 0x30, def_cfa_offset(16) + advance(6) + def_cfa_offset(24) + advance(10) +
         def_cfa_expr(PLT_EXPR)),
        # gcc's stack realignment through r10 (DRAP).
        (t + 0x50, 0x40, advance(5) + def_cfa(10, 0) + advance(4) + expression(6, breg(6, 0)) +
         advance(2) + def_cfa_expr(breg(6, -8) + DEREF) + REMEMBER + advance(0x10) +
         def_cfa(10, 0) + advance(2) + RESTORE + advance(4) + def_cfa(7, 8)),
        # A signal frame: CFA and return address loaded from a saved context.
        (t + 0x90, 0x10, def_cfa_expr(breg(7, 160) + DEREF) + expression(16, breg(7, 168))),
        # _start: the end of the stack.
        (t + 0xa0, 0x10, undefined(16)),
        # A frame larger than 16 bits can hold, after a gap.
        (t + 0xc0, 0x20, advance(1) + def_cfa_offset(16) + offset(3, 2) + advance(7) +
         def_cfa_offset(40016)),
        # The rarer encodings of the same rules, one row each.
        (t + 0xe0, 0x80,
         advance(1) + def_cfa_expr(breg(7, 16)) +                      # rsp+16
         advance(1) + def_cfa_expr(breg(7, 8) + DEREF + b"\x23\x10") +  # *(rsp+8)+16
         advance(1) + def_cfa_expr(breg(6, -8) + DEREF + b"\x08\x20\x22") +  # *(rbp-8)+32
         advance(1) + def_cfa_expr(breg(7, 0) + DEREF + b"\x38\x22") +  # *(rsp+0)+8
         advance(1) + b"\x12\x07" + sleb(-2) +                          # def_cfa_sf: rsp+16
         advance(1) + b"\x13" + sleb(-3) +                               # def_cfa_offset_sf: 24
         advance(1) + b"\x11\x06" + sleb(2) +                           # rbp at cfa-16 (_sf)
         b"\x02\x01" + b"\x14\x06\x02" +                               # rbp = cfa-16 (value)
         b"\x03\x01\x00" + b"\x09\x06\x03" +                           # rbp in rbx
         b"\x04\x01\x00\x00\x00" + b"\x08\x06" +                       # rbp same value
         advance(1) + undefined(6) +                                      # rbp undefined
         advance(1) + offset(6, 5000) +                                   # rbp at cfa-40000
         advance(1) + b"\x2e\x10" +                                     # GNU_args_size
         advance(1) + offset(16, 2) +                                     # ra at cfa-16
         advance(1) + def_cfa(3, 8)),                                     # CFA on rbx
    ]


def write(outdir, name, data):
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


def hand_made(outdir):
    # .eh_frame follows .text: its address is known once .text is placed.
    _, text = elf(EM_X86_64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, b"")])
    eh_addr = text + 0x180
    eh = eh_frame(eh_addr, x86_fdes(text), X86_CIE)
    data, _ = elf(EM_X86_64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh)])
    write(outdir, "x86-eh-frame.elf", data)
    # Truncated in the middle of the CFI, and with the section running past the file.
    write(outdir, "x86-eh-frame-truncated.elf", data[:eh_addr + len(eh) // 2])
    write(outdir, "x86-eh-frame-cut-headers.elf", data[:len(data) - 40])

    for version in (1, 3, 4):
        dbg = debug_frame(version, x86_fdes(text), X86_CIE)
        data, _ = elf(EM_X86_64, ET_EXEC, [(".debug_frame", SHT_PROGBITS, 0, dbg)])
        write(outdir, f"x86-debug-frame-v{version}.elf", data)

    # Both sections, describing overlapping functions.
    dbg = debug_frame(3, x86_fdes(text)[:3] + [(text + 0x160, 0x20, advance(1) +
                                                 def_cfa_offset(16))], X86_CIE)
    data, _ = elf(EM_X86_64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh),
                                      (".debug_frame", SHT_PROGBITS, 0, dbg)])
    write(outdir, "x86-both.elf", data)

    # glibc's signal trampoline: under a zRS CIE, the interrupted frame's
    # stack pointer, rbp and pc are in the signal context at rsp + constants.
    sig = [(text, 0x10, def_cfa_expr(breg(7, 160) + DEREF) + expression(6, breg(7, 120)) +
            expression(16, breg(7, 168)))]
    eh = eh_frame(eh_addr, sig, X86_CIE, aug=b"zRS")
    data, _ = elf(EM_X86_64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh)])
    write(outdir, "x86-signal-frame.elf", data)

    # aarch64: CFA on sp then x29, x29 and x30 saved on the stack.
    a64_cie = def_cfa(31, 0)
    a64_fdes = [(text, 0x40, advance(1) + def_cfa_offset(32) + offset(29, 4) + offset(30, 3) +
                 advance(1) + def_cfa_register(29) + advance(12) + def_cfa(31, 0)),
                (text + 0x40, 0x20, advance(1) + def_cfa_offset(40016) + offset(30, 5002))]
    eh = eh_frame(eh_addr, a64_fdes, a64_cie, code_align=4, data_align=-8, ra=30)
    data, _ = elf(EM_AARCH64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh)])
    write(outdir, "aarch64-eh-frame.elf", data)

    # aarch64's PLT, which has no CFI: the rows of its code (a lazy-binding header, two
    # stubs), and a PLT whose code moves sp, which gets none.
    a64 = lambda *words: struct.pack(f"<{len(words)}I", *words)
    plt0 = a64(0xa9bf7bf0, 0x90000010, 0xf9400211, 0x91000210, 0xd61f0220, 0xd503201f,
               0xd503201f, 0xd503201f)
    stub = a64(0x90000010, 0xf9400211, 0x91000210, 0xd61f0220)
    for name, plt in (("aarch64-plt.elf", plt0 + stub * 2),
                      ("aarch64-plt-moves-sp.elf", plt0 + a64(0xd10043ff) + stub)):
        data, _ = elf(EM_AARCH64, ET_DYN, [(".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh),
                                           (".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, plt)])
        write(outdir, name, data)


FIXTURES = ["chain-pie", "except", "libdframe.so", "both-stripped.debug", "chain-aarch64",
            "vdso-aarch64"]


def fixtures(outdir):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "bin")
    for name in FIXTURES:
        path = os.path.join(src, name)
        if not os.path.exists(path):
            print(f"make_seeds: {path} missing, skipped", file=sys.stderr)
            continue
        out = os.path.join(outdir, "fixture-" + name)
        # Symbols and notes only make the inputs longer; keep .debug_frame.
        res = subprocess.run(["objcopy", "--strip-unneeded", "--remove-section=.comment",
                              path, out], stderr=subprocess.DEVNULL, check=False)
        if res.returncode != 0:
            shutil.copyfile(path, out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    os.makedirs(outdir, exist_ok=True)
    hand_made(outdir)
    fixtures(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-rbruntime/: small ELF64 x86_64 files shaped like a libruby 3.3, and
aarch64 ones shaped like Debian's arm64 libruby 3.1.

usage: make_rbruntime_seeds.py [OUTDIR]   (default: corpus-rbruntime next to this script)

One PT_LOAD segment holds ruby_version, the code of rb_thread_current (its
general-dynamic load of ruby_current_ec through a GOT pair), rb_iseq_eval and
rb_iseq_eval_main (both ending in a jump to the VM's function), that function,
rb_id2str and the lookup it jumps to (the symbol table's last_id and ids), the
GOT pair and the symbol table; .eh_frame has an FDE for the VM's function,
.rela.dyn the pair's DTPMOD64, .symtab names the exported functions, not the
VM's nor the variable (as libruby 3.3 hides them). Seeds: that file, 3.1 and
3.2 by their version (the first known, the second not), and broken ones (no
FDE, the pair without its relocation, an offset not a variable's, the two
jumps to two places, the code cut by the file's end).
"""

import os
import struct
import sys

BASE = 0x400000
(VERSION, THREAD_CURRENT, ISEQ_EVAL, ISEQ_EVAL_MAIN, VM_EXEC, ID2STR, LOOKUP, GOT, SYMBOLS,
 EH_FRAME, RELA, END) = (0x100, 0x120, 0x160, 0x1a0, 0x1e0, 0x220, 0x240, 0x300, 0x320,
                         0x400, 0x480, 0x800)
FN_SIZE = 0x40
R_X86_64_DTPMOD64 = 16


def rel32(end, target):
    """The rel32 of an instruction ending at file offset end, to file offset target."""
    return struct.pack("<i", target - end)


def thread_current():
    """endbr64; data16 lea GOT(%rip),%rdi; call __tls_get_addr; mov (%rax),%rax; ret"""
    lea = b"\x66\x48\x8d\x3d" + rel32(THREAD_CURRENT + 12, GOT)
    call = b"\x66\x66\x48\xe8" + struct.pack("<i", -0x1000)
    return b"\xf3\x0f\x1e\xfa" + lea + call + b"\x48\x8b\x00\xc3"


def jumps(at, targets):
    code = bytearray(b"\x90" * FN_SIZE)
    for i, t in enumerate(targets):
        pos = FN_SIZE - 5 * (len(targets) - i)
        code[pos:pos + 5] = b"\xe9" + rel32(at + pos + 5, t)
    return bytes(code)


def lookup():
    cmp = b"\x39\x3d" + rel32(LOOKUP + 6, SYMBOLS)
    mov = b"\x48\x8b\x3d" + rel32(LOOKUP + 13, SYMBOLS + 16)
    return cmp + mov + b"\xc3"


def a64(*insns):
    return b"".join(struct.pack("<I", i) for i in insns)


def lookup_a64():
    """adrp x0, SYMBOLS; ldr w1, [x0, #lo]; add x0, x0, #lo; ldr x0, [x0, #16]; ret
    (SYMBOLS in LOOKUP's page)."""
    lo = SYMBOLS & 0xfff
    return a64(0x90000000, 0xb9400000 | (lo // 4) << 10 | 1, 0x91000000 | lo << 10,
               0xf9400000 | (16 // 8) << 10, 0xd65f03c0)


def eh_frame(lo, size):
    """A CIE (zR, pc-relative sdata4 FDE pointers) and one FDE for [lo, lo + size)."""
    cie_body = struct.pack("<IB", 0, 1) + b"zR\0" + b"\x01\x78\x10\x01\x1b" + \
        b"\x0c\x07\x08\x90\x01" + b"\0" * 2
    cie = struct.pack("<I", len(cie_body)) + cie_body
    fde_at = EH_FRAME + len(cie)
    fde_body = struct.pack("<I", fde_at + 4 - EH_FRAME) + \
        struct.pack("<ii", lo - (fde_at + 8), size) + b"\0" + b"\0" * 3
    return cie + struct.pack("<I", len(fde_body)) + fde_body + b"\0" * 4


def elf(version=b"3.3.8", iseq_eval=(VM_EXEC,), main=(VM_EXEC,), fde=True, reloc=True,
        offset=0x10, file_end=END, aarch64=False):
    if aarch64:
        return elf_a64(version, reloc, file_end)
    body = bytearray(END)
    body[VERSION:VERSION + len(version) + 1] = version + b"\0"
    tc = thread_current()
    body[THREAD_CURRENT:THREAD_CURRENT + len(tc)] = tc
    body[ISEQ_EVAL:ISEQ_EVAL + FN_SIZE] = jumps(ISEQ_EVAL, iseq_eval)
    body[ISEQ_EVAL_MAIN:ISEQ_EVAL_MAIN + FN_SIZE] = jumps(ISEQ_EVAL_MAIN, main)
    body[VM_EXEC:VM_EXEC + FN_SIZE] = b"\x90" * (FN_SIZE - 1) + b"\xc3"
    body[ID2STR:ID2STR + 5] = b"\xe9" + rel32(ID2STR + 5, LOOKUP)
    lk = lookup()
    body[LOOKUP:LOOKUP + len(lk)] = lk
    body[GOT:GOT + 16] = struct.pack("<QQ", 0, offset)
    body[SYMBOLS:SYMBOLS + 24] = struct.pack("<IIQQ", 1000, 0, 0, 0)
    eh = eh_frame(VM_EXEC, FN_SIZE) if fde else b""
    body[EH_FRAME:EH_FRAME + len(eh)] = eh
    rela = struct.pack("<QQq", BASE + GOT, R_X86_64_DTPMOD64 if reloc else 8, 0)
    body[RELA:RELA + 24] = rela
    syms = [("ruby_version", VERSION, len(version) + 1, 1),
            ("rb_thread_current", THREAD_CURRENT, 32, 2),
            ("rb_iseq_eval", ISEQ_EVAL, FN_SIZE, 2),
            ("rb_iseq_eval_main", ISEQ_EVAL_MAIN, FN_SIZE, 2),
            ("rb_id2str", ID2STR, 5, 2)]
    strtab = b"\0"
    symtab = b"\0" * 24
    for name, off, size, typ in syms:
        symtab += struct.pack("<IBBHQQ", len(strtab), 0x10 | typ, 0, 1, BASE + off, size)
        strtab += name.encode() + b"\0"
    shstr = b"\0.text\0.eh_frame\0.rela.dyn\0.symtab\0.strtab\0.shstrtab\0"
    symtab_off = END
    strtab_off = symtab_off + len(symtab)
    shstr_off = strtab_off + len(strtab)
    shoff = (shstr_off + len(shstr) + 7) & ~7
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, shoff, 0, 64, 56, 1, 64, 7, 6))
    phdr = struct.pack("<IIQQQQQQ", 1, 7, 0, BASE, BASE, file_end, END, 0x1000)
    body[0:64] = ehdr
    body[64:120] = phdr
    sh = b"\0" * 64
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 6, BASE + 0x100, 0x100, EH_FRAME - 0x100, 0, 0, 16, 0)
    sh += struct.pack("<IIQQQQIIQQ", 7, 1, 2, BASE + EH_FRAME, EH_FRAME, len(eh), 0, 0, 8, 0)
    sh += struct.pack("<IIQQQQIIQQ", 17, 4, 2, BASE + RELA, RELA, 24, 4, 0, 8, 24)
    sh += struct.pack("<IIQQQQIIQQ", 27, 2, 0, 0, symtab_off, len(symtab), 5, 1, 8, 24)
    sh += struct.pack("<IIQQQQIIQQ", 35, 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    sh += struct.pack("<IIQQQQIIQQ", 43, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    out = bytes(body) + symtab + strtab + shstr
    return out + b"\0" * (shoff - len(out)) + sh


def elf_a64(version, reloc, file_end):
    """An aarch64 libruby 3.1's shape: rb_vm_exec and ruby_current_ec (TLS, at 8 of its
    block) exported in .dynsym, the variable's TLS descriptor (R_AARCH64_TLSDESC) among
    .rela.plt's relocations, rb_id2str a branch to the lookup."""
    body = bytearray(END)
    body[VERSION:VERSION + len(version) + 1] = version + b"\0"
    body[VM_EXEC:VM_EXEC + FN_SIZE] = a64(*[0xd503201f] * (FN_SIZE // 4 - 1), 0xd65f03c0)
    body[ID2STR:ID2STR + 4] = a64(0x14000000 | (LOOKUP - ID2STR) // 4)
    lk = lookup_a64()
    body[LOOKUP:LOOKUP + len(lk)] = lk
    body[GOT:GOT + 16] = struct.pack("<QQ", 0, 0x40)
    body[SYMBOLS:SYMBOLS + 24] = struct.pack("<IIQQ", 1000, 0, 0, 0)
    syms = [("ruby_version", VERSION, len(version) + 1, 1, BASE),
            ("rb_vm_exec", VM_EXEC, FN_SIZE, 2, BASE),
            ("rb_id2str", ID2STR, 4, 2, BASE),
            ("ruby_current_ec", 8, 8, 6, 0)]
    strtab = b"\0"
    symtab = b"\0" * 24
    for name, off, size, typ, base in syms:
        symtab += struct.pack("<IBBHQQ", len(strtab), 0x10 | typ, 0, 1, base + off, size)
        strtab += name.encode() + b"\0"
    rela = struct.pack("<QQq", BASE + GOT, (len(syms) << 32) | (1031 if reloc else 1026), 0)
    body[RELA:RELA + 24] = rela
    shstr = b"\0.text\0.rela.plt\0.dynsym\0.dynstr\0.shstrtab\0"
    symtab_off = END
    strtab_off = symtab_off + len(symtab)
    shstr_off = strtab_off + len(strtab)
    shoff = (shstr_off + len(shstr) + 7) & ~7
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 3, 183, 1, 0, 64, shoff, 0, 64, 56, 1, 64, 6, 5))
    phdr = struct.pack("<IIQQQQQQ", 1, 7, 0, BASE, BASE, file_end, END, 0x1000)
    body[0:64] = ehdr
    body[64:120] = phdr
    sh = b"\0" * 64
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 6, BASE + 0x100, 0x100, EH_FRAME - 0x100, 0, 0, 16, 0)
    sh += struct.pack("<IIQQQQIIQQ", 7, 4, 2, BASE + RELA, RELA, 24, 3, 0, 8, 24)
    sh += struct.pack("<IIQQQQIIQQ", 17, 11, 2, 0, symtab_off, len(symtab), 4, 1, 8, 24)
    sh += struct.pack("<IIQQQQIIQQ", 25, 3, 2, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    sh += struct.pack("<IIQQQQIIQQ", 33, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    out = bytes(body) + symtab + strtab + shstr
    return out + b"\0" * (shoff - len(out)) + sh


SEEDS = {
    "aarch64-ruby31": elf(version=b"3.1.2", aarch64=True),
    "aarch64-no-tlsdesc": elf(version=b"3.1.2", aarch64=True, reloc=False),
    "aarch64-code-past-file": elf(version=b"3.1.2", aarch64=True, file_end=ID2STR + 2),
    "ruby33": elf(),
    "ruby31-version": elf(version=b"3.1.2"),
    "ruby32-unknown": elf(version=b"3.2.4"),
    "no-fde": elf(fde=False),
    "slot-without-dtpmod": elf(reloc=False),
    "offset-unaligned": elf(offset=0x13),
    "offset-huge": elf(offset=1 << 40),
    "two-common-jumps": elf(iseq_eval=(0x1000, VM_EXEC), main=(0x1000, VM_EXEC)),
    "no-common-jump": elf(main=(0x1000,)),
    "code-past-file": elf(file_end=THREAD_CURRENT + 8),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "corpus-rbruntime")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

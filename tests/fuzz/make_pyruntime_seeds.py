#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-pyruntime/: small ELF64 x86_64 files shaped like CPython interpreters.

usage: make_pyruntime_seeds.py [OUTDIR]   (default: corpus-pyruntime next to this script)

One PT_LOAD segment holds _PyRuntime, Py_Version, Py_GetVersion's code
(lea FORMAT(%rip),%rdx; lea VERSION(%rip),%rcx) with its two strings, and the
eval loop; a .symtab names them. Seeds: 3.13, 3.14 and 3.15 with their _Py_DebugOffsets (3.14's free-threaded, 3.16's
unknown), 3.11
and 3.12 by Py_Version, 3.10 and 3.9rc2 by Py_GetVersion, 3.6 by interp_head
and autoTLSkey, and broken ones (the cookie, a table cut short, a
free-threaded build, an offset past its struct, a version string without an
end, the eval loop past the file).
"""

import os
import struct
import sys

BASE = 0x400000
VERSION, GETVERSION, FORMAT, VERSTR, EVAL, RUNTIME, END = (
    0x100, 0x120, 0x140, 0x160, 0x180, 0x200, 0x800)

# 3.13.0's _Py_DebugOffsets: (byte offset, value)
DEBUG_OFFSETS = [(24, 1024), (40, 632), (48, 8192), (64, 7264), (72, 7344), (152, 512),
                 (168, 8), (184, 72), (192, 152), (200, 160), (224, 80), (232, 8), (240, 0),
                 (248, 56), (264, 70), (272, 208), (280, 112), (288, 120), (296, 128),
                 (304, 136), (312, 68), (344, 200), (536, 40), (544, 32), (552, 16), (560, 40)]


def elf(contents, syms, file_end=END):
    """contents: {offset: bytes}; syms: [(name, offset, size, type)], type 1 object, 2 func."""
    body = bytearray(END)
    for off, b in contents.items():
        body[off:off + len(b)] = b
    strtab = b"\0"
    symtab = b"\0" * 24
    for name, off, size, typ in syms:
        symtab += struct.pack("<IBBHQQ", len(strtab), 0x10 | typ, 0, 1, BASE + off, size)
        strtab += name.encode() + b"\0"
    shstr = b"\0.data\0.symtab\0.strtab\0.shstrtab\0"
    symtab_off = END
    strtab_off = symtab_off + len(symtab)
    shstr_off = strtab_off + len(strtab)
    shoff = (shstr_off + len(shstr) + 7) & ~7
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, shoff, 0, 64, 56, 1, 64, 5, 4))
    # zero-filled memory after the file's bytes, as .bss
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, BASE, BASE, file_end, 0x1000, 0x1000)
    body[0:64] = ehdr
    body[64:120] = phdr
    sh = b"\0" * 64
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 2, BASE + 0x100, 0x100, END - 0x100, 0, 0, 8, 0)
    sh += struct.pack("<IIQQQQIIQQ", 7, 2, 0, 0, symtab_off, len(symtab), 3, 1, 8, 24)
    sh += struct.pack("<IIQQQQIIQQ", 15, 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    sh += struct.pack("<IIQQQQIIQQ", 23, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    out = bytes(body) + symtab + strtab + shstr
    return out + b"\0" * (shoff - len(out)) + sh


# 3.14's and 3.15's, made up in the places of their layouts (the thread's
# group grew in 3.15, moving the groups after it): (byte offset, value)
def later_offsets(tstate_id, frame, code, bytes_, str_):
    return [(24, 1024), (40, 808), (48, 9000), (64, 7272), (72, 7344), (176, 900), (192, 8),
            (208, 72), (tstate_id, 152), (tstate_id + 8, 160), (frame, 88), (frame + 8, 8),
            (frame + 16, 0), (frame + 24, 56), (frame + 40, 74), (code, 216), (code + 8, 112),
            (code + 16, 120), (code + 24, 128), (code + 32, 136), (code + 40, 68),
            (code + 72, 208), (bytes_, 40), (bytes_ + 16, 32), (str_, 64), (str_ + 8, 32),
            (str_ + 16, 16), (str_ + 24, 40)]


DEBUG_OFFSETS_314 = later_offsets(216, 248, 312, 592, 616)
DEBUG_OFFSETS_315 = later_offsets(240, 312, 376, 688, 712)


def debug_offsets(version=0x030D00F0, cookie=b"xdebugpy", free_threaded=0, patch=(),
                  words=DEBUG_OFFSETS):
    t = bytearray(1024)
    t[0:8] = cookie
    t[8:24] = struct.pack("<QQ", version, free_threaded)
    for off, v in list(words) + list(patch):
        t[off:off + 8] = struct.pack("<Q", v)
    return bytes(t)


def getversion(version, fmt=b"%.80s (%.80s) %.80s"):
    code = (b"\x48\x8d\x15" + struct.pack("<i", FORMAT - (GETVERSION + 7)) +
            b"\x48\x8d\x0d" + struct.pack("<i", VERSTR - (GETVERSION + 14)) + b"\xc3")
    return {GETVERSION: code, FORMAT: fmt + b"\0", VERSTR: version + b"\0"}


def seeds():
    v = lambda hexv: {VERSION: struct.pack("<Q", hexv)}
    new = [("_PyRuntime", RUNTIME, 1024, 1), ("Py_Version", VERSION, 8, 1),
           ("_PyEval_EvalFrameDefault", EVAL, 64, 2),
           ("_PyEval_EvalFrameDefault.cold", EVAL + 64, 16, 2)]
    old = [("_PyRuntime", RUNTIME, 1024, 1), ("Py_GetVersion", GETVERSION, 16, 2),
           ("_PyEval_EvalFrameDefault", EVAL, 64, 2)]
    py36 = [("interp_head", RUNTIME, 8, 1), ("autoTLSkey", RUNTIME + 8, 4, 1),
            ("Py_GetVersion", GETVERSION, 16, 2), ("_PyEval_EvalFrameDefault", EVAL, 64, 2)]
    yield "py313", elf({**v(0x030D00F0), RUNTIME: debug_offsets()}, new)
    yield "py313-cookie", elf({**v(0x030D00F0), RUNTIME: debug_offsets(cookie=b"xdebugpz")}, new)
    yield "py313-cut", elf({**v(0x030D00F0), RUNTIME: debug_offsets()}, new, file_end=RUNTIME + 300)
    yield "py313-other-version", elf({**v(0x030D00F0), RUNTIME: debug_offsets(0x030D01F0)}, new)
    yield "py313t", elf({**v(0x030D00F0), RUNTIME: debug_offsets(free_threaded=1)}, new)
    yield "py313-past-struct", elf({**v(0x030D00F0), RUNTIME: debug_offsets(patch=[(72, 8190)])}, new)
    yield "py311", elf(v(0x030B07F0), new)
    yield "py312", elf(v(0x030C01F0), [("_PyRuntime", RUNTIME, 2048, 1)] + new[1:])
    yield "py314-table-313", elf(v(0x030E00F0), new)
    d314 = lambda **kw: debug_offsets(0x030E0AF0, words=DEBUG_OFFSETS_314, **kw)
    d315 = lambda **kw: debug_offsets(0x030F02F0, words=DEBUG_OFFSETS_315, **kw)
    yield "py314", elf({**v(0x030E0AF0), RUNTIME: d314()}, new)
    yield "py315", elf({**v(0x030F02F0), RUNTIME: d315()}, new)
    yield "py314t", elf({**v(0x030E0AF0), RUNTIME: d314(free_threaded=1)}, new)
    yield "py315-runtime-size", elf({**v(0x030F02F0), RUNTIME: d315(patch=[(24, 1032)])}, new)
    yield "py315-past-struct", elf({**v(0x030F02F0), RUNTIME: d315(patch=[(240, 896)])}, new)
    yield "py315-as-314", elf({**v(0x030E0AF0), RUNTIME: d315(patch=[(8, 0x030E0AF0)])}, new)
    yield "py315-cut", elf({**v(0x030F02F0), RUNTIME: d315()}, new, file_end=RUNTIME + 800)
    yield "py316", elf({**v(0x031000F0), RUNTIME: debug_offsets(0x031000F0, words=DEBUG_OFFSETS_315)},
                       new)
    yield "py310", elf(getversion(b"3.10.13"), old)
    yield "py39rc2", elf(getversion(b"3.9.0rc2"), old)
    yield "py39-no-end", elf({**getversion(b"3.9.18"), VERSTR: b"3" * 64}, old)
    yield "py36", elf(getversion(b"3.6.15"), py36)
    yield "py311-eval-past-end", elf(v(0x030B07F0), new[:2] + [("_PyEval_EvalFrameDefault", EVAL, 1 << 20, 2)])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus-pyruntime")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

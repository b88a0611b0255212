#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad input to `unwprof dump-unwind`: each case must exit with exactly 1
(not a signal, not a sanitizer report, not a hang) and print a message on
stderr that starts with "unwprof: " and names the file at fault.

Usage: bad_input.py UNWPROF FIXTURES_BIN_DIR

The malformed files are copies of fixtures with a few bytes patched; the
sections are located by reading the ELF section headers here.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TIMEOUT = 30
SANITIZER_WORDS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "Segmentation")


class Elf:
    """Just enough of an ELF64 little-endian file to find and patch sections."""

    def __init__(self, data):
        self.data = bytearray(data)
        (self.shoff,) = struct.unpack_from("<Q", self.data, 0x28)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHH", self.data, 0x3a)
        strtab = self.shdr(self.shstrndx)
        self.names = {}
        for i in range(self.shnum):
            name_off = struct.unpack_from("<I", self.data, self.shdr_pos(i))[0]
            start = strtab["offset"] + name_off
            end = self.data.index(b"\0", start)
            self.names[self.data[start:end].decode()] = i

    def shdr_pos(self, i):
        return self.shoff + i * self.shentsize

    def shdr(self, i):
        pos = self.shdr_pos(i)
        _, _, _, addr, offset, size = struct.unpack_from("<IIQQQQ", self.data, pos)
        return {"pos": pos, "addr": addr, "offset": offset, "size": size}

    def section(self, name):
        return self.shdr(self.names[name])

    def set_shdr(self, name, field, value):
        pos = self.section(name)["pos"]
        at = {"addr": 16, "offset": 24, "size": 32}[field]
        struct.pack_into("<Q", self.data, pos + at, value)


def uleb(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def cfi_entries(elf, name):
    """(offset in file, is_cie, length) of each CIE/FDE of a CFI section."""
    sec = elf.section(name)
    pos, end = sec["offset"], sec["offset"] + sec["size"]
    cie_id = 0 if name == ".eh_frame" else 0xffffffff
    out = []
    while pos + 8 <= end:
        length, ident = struct.unpack_from("<II", elf.data, pos)
        if length == 0:
            break
        out.append((pos, ident == cie_id, length))
        pos += 4 + length
    return out


def cie_layout(elf, pos):
    """File offsets of a CIE's version, augmentation string and first instruction."""
    version = pos + 8
    aug = version + 1
    aug_end = elf.data.index(b"\0", aug)
    aug_str = bytes(elf.data[aug:aug_end])
    p = aug_end + 1
    _, p = uleb(elf.data, p)		# code alignment
    _, p = uleb(elf.data, p)		# data alignment (sign does not matter to skip it)
    if elf.data[version] == 1:
        p += 1				# return address register, one byte
    else:
        _, p = uleb(elf.data, p)
    if aug_str.startswith(b"z"):
        n, p = uleb(elf.data, p)
        p += n
    return {"version": version, "aug": aug, "insn": p}


def patch_cies(section, fn):
    def patch(elf):
        cies = [e for e in cfi_entries(elf, section) if e[1]]
        assert cies, "no CIE in " + section
        for pos, _, _ in cies:
            fn(elf, pos)
    return patch


def first_fde(section, fn):
    def patch(elf):
        fdes = [e for e in cfi_entries(elf, section) if not e[1]]
        assert fdes, "no FDE in " + section
        fn(elf, fdes[0][0])
    return patch


def set_u32(off_fn, value):
    return lambda elf, pos: struct.pack_into("<I", elf.data, off_fn(elf, pos), value)


def set_bytes(off_fn, value):
    def fn(elf, pos):
        at = off_fn(elf, pos)
        elf.data[at:at + len(value)] = value
    return fn


def elf32_header():
    """An ELF32 little-endian i386 executable header with no sections."""
    ident = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
    return ident + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, 0x8048000, 0, 0, 0,
                               52, 32, 0, 40, 0, 0)


def build_cases(bindir, tmp):
    """name -> (argv after `dump-unwind`, file the message must name)."""
    pie = os.path.join(bindir, "chain-pie")
    dframe = os.path.join(bindir, "libdframe.so")
    with open(pie, "rb") as f:
        pie_bytes = f.read()
    with open(dframe, "rb") as f:
        dframe_bytes = f.read()
    cases = {}

    def write(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def add(name, data, extra=()):
        path = write(name, data)
        cases[name] = (list(extra) + [path], name)

    def patched(name, base, fn):
        elf = Elf(base)
        fn(elf)
        add(name, bytes(elf.data))

    missing = os.path.join(tmp, "does-not-exist")
    cases["missing"] = ([missing], "does-not-exist")
    os.mkdir(os.path.join(tmp, "a-directory"))
    cases["directory"] = ([os.path.join(tmp, "a-directory")], "a-directory")
    add("empty", b"")
    add("not-elf", b"#!/bin/sh\necho this is not an ELF file\n")
    add("elf-magic-only", b"\x7fELF")
    add("elf32", elf32_header() + bytes(64))
    add("truncated-header", pie_bytes[:40])
    add("truncated-4k", pie_bytes[:4096])
    add("truncated-tail", pie_bytes[:len(pie_bytes) - 100])

    big_endian = bytearray(pie_bytes)
    big_endian[5] = 2
    add("big-endian", bytes(big_endian))
    riscv = bytearray(pie_bytes)
    struct.pack_into("<H", riscv, 0x12, 243)	# EM_RISCV
    add("machine-riscv", bytes(riscv))
    shoff = bytearray(pie_bytes)
    struct.pack_into("<Q", shoff, 0x28, len(pie_bytes) + 0x10000)
    add("shoff-past-end", bytes(shoff))

    patched("eh-frame-offset-past-end", pie_bytes,
            lambda e: e.set_shdr(".eh_frame", "offset", len(pie_bytes) + 0x1000))
    patched("eh-frame-size-past-end", pie_bytes,
            lambda e: e.set_shdr(".eh_frame", "size", 0x10000000))
    patched("eh-frame-size-overflow", pie_bytes,
            lambda e: e.set_shdr(".eh_frame", "size", 0xfffffffffffff000))
    patched("cie-length-past-end", pie_bytes,
            patch_cies(".eh_frame", set_u32(lambda e, p: p, 0x7ffffff0)))
    patched("cie-length-64bit-past-end", pie_bytes,
            patch_cies(".eh_frame", lambda e, p: struct.pack_into(
                "<IQ", e.data, p, 0xffffffff, 0x7ffffffffffffff0)))
    patched("fde-length-past-end", pie_bytes,
            first_fde(".eh_frame", set_u32(lambda e, p: p, 0x7ffffff0)))
    patched("fde-cie-pointer-bad", pie_bytes,
            first_fde(".eh_frame", set_u32(lambda e, p: p + 4, 0x7ffffff0)))
    patched("cie-version-9", pie_bytes,
            patch_cies(".eh_frame", set_bytes(lambda e, p: cie_layout(e, p)["version"],
                                               b"\x09")))
    patched("cfa-opcode-unknown", pie_bytes,
            patch_cies(".eh_frame", set_bytes(lambda e, p: cie_layout(e, p)["insn"], b"\x17")))
    patched("augmentation-bad", pie_bytes,
            patch_cies(".eh_frame", set_bytes(lambda e, p: cie_layout(e, p)["aug"], b"q")))
    patched("debug-frame-cie-length-past-end", dframe_bytes,
            patch_cies(".debug_frame", set_u32(lambda e, p: p, 0x7ffffff0)))
    patched("debug-frame-opcode-unknown", dframe_bytes,
            patch_cies(".debug_frame", set_bytes(lambda e, p: cie_layout(e, p)["insn"],
                                                 b"\x17")))

    # A debug file given with --debug-file that is missing, not ELF, or the
    # debug file of another file: the message names the debug file.
    not_elf = write("debug-not-elf", b"not an ELF file\n")
    cases["debug-file-not-elf"] = (["--debug-file", not_elf, pie], "debug-not-elf")
    cases["debug-file-missing"] = (["--debug-file", os.path.join(tmp, "no-such.debug"), pie],
                                   "no-such.debug")
    cases["debug-file-wrong-build-id"] = (["--debug-file", dframe, pie], "libdframe.so")
    return cases


def check(unwprof, name, argv, names):
    try:
        p = subprocess.run([unwprof, "dump-unwind"] + argv, capture_output=True,
                           timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "%s: no answer after %d s (a hang)" % (name, TIMEOUT)
    err = p.stderr.decode(errors="replace")
    problems = []
    if p.returncode != 1:
        problems.append("exit %d, expected 1" % p.returncode)
    if not err:
        problems.append("nothing on stderr")
    elif not err.startswith("unwprof: "):
        problems.append('stderr does not start with "unwprof: "')
    if err and names not in err:
        problems.append("stderr does not name %s" % names)
    for w in SANITIZER_WORDS:
        if w in err:
            problems.append("stderr mentions %r" % w)
    if problems:
        return "%s: %s\n    stderr: %s" % (name, "; ".join(problems),
                                          err.strip().replace("\n", "\n            "))
    return None


def main(argv):
    if len(argv) != 3:
        print("usage: bad_input.py UNWPROF FIXTURES_BIN_DIR", file=sys.stderr)
        return 1
    unwprof, bindir = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    tmp = tempfile.mkdtemp(prefix="unwprof-bad-")
    try:
        cases = build_cases(bindir, tmp)
        fails = 0
        for name, (args, names) in cases.items():
            problem = check(unwprof, name, args, names)
            if problem:
                print("FAIL " + problem)
                fails += 1
            else:
                print("ok %s" % name)
    finally:
        shutil.rmtree(tmp)
    print("%d of %d cases failed" % (fails, len(cases)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes corpus-dwarf/: ELF files with DWARF for the line and inline reader.

usage: make_dwarf_seeds.py OUTDIR FILE [BROKEN_FILE...]

FILE and BROKEN_FILE are programs built with -g (tests/workloads/inline-gz,
and inline and inline-dwarf4: compressed DWARF 5, DWARF 5, DWARF 4), copied as
they are; each BROKEN_FILE is also broken one section at a time in the ways hostile or damaged files are: the
section cut to a third of its size in its header, a run of bytes in its
middle set to 0xff, and its first bytes (a unit's length and version) set to
0xff. The sections are the ones core/symbols/dwarf_lines.c hands to libdwarf.
"""

import os
import struct
import sys

SECTIONS = ('.debug_info', '.debug_abbrev', '.debug_line', '.debug_line_str', '.debug_str',
            '.debug_rnglists', '.debug_ranges', '.debug_addr', '.debug_str_offsets')


def sections(data):
    """{name: (header offset, file offset, size)} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdr = lambda i: shoff + i * shentsize
    stroff, = struct.unpack_from('<Q', data, hdr(shstrndx) + 0x18)
    out = {}
    for i in range(shnum):
        name_off, = struct.unpack_from('<I', data, hdr(i))
        off, size = struct.unpack_from('<QQ', data, hdr(i) + 0x18)
        end = data.index(b'\0', stroff + name_off)
        out[data[stroff + name_off:end].decode()] = (hdr(i), off, size)
    return out


def variants(data):
    for name, (hdr, off, size) in sections(data).items():
        if name not in SECTIONS or size < 16:
            continue
        short = bytearray(data)
        struct.pack_into('<Q', short, hdr + 0x20, size // 3)
        yield f'{name[1:]}-cut', short
        mid = bytearray(data)
        at = off + size // 2
        mid[at:at + 16] = b'\xff' * 16
        yield f'{name[1:]}-ff', mid
        head = bytearray(data)
        head[off:off + 8] = b'\xff' * 8
        yield f'{name[1:]}-head', head


def main():
    if len(sys.argv) < 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 64
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, path in enumerate(sys.argv[2:]):
        base = os.path.basename(path)
        data = open(path, 'rb').read()
        open(os.path.join(out, base), 'wb').write(data)
        for suffix, v in variants(data) if i else ():
            open(os.path.join(out, f'{base}-{suffix}'), 'wb').write(bytes(v))
    return 0


if __name__ == '__main__':
    sys.exit(main())

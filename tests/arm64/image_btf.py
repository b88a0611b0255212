#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Usage: image_btf.py IMAGE OUT

Writes the BTF of a kernel Image (arm64's uncompressed boot image, which is no
ELF file) to OUT as raw BTF, the form `bpftool btf dump file` reads. The
kernel links its BTF between __start_BTF and __stop_BTF: it is found by its
header (magic 0xeb9f, version 1, a 24-byte header, the types then the
strings), and checked: the string section starts and ends with a NUL. When
several candidates pass, the largest is the kernel's. Exits 1 when none does.
"""
import struct
import sys

HEADER = struct.Struct("<HBBIIIII")
MAGIC = b"\x9f\xeb\x01\x00\x18\x00\x00\x00"


def candidates(data):
    at = data.find(MAGIC)
    while at >= 0:
        _, _, _, hdr_len, type_off, type_len, str_off, str_len = HEADER.unpack_from(data, at)
        end = at + hdr_len + str_off + str_len
        strs = at + hdr_len + str_off
        if (type_off == 0 and str_off == type_len and str_len > 1 and end <= len(data)
                and data[strs] == 0 and data[end - 1] == 0):
            yield data[at:end]
        at = data.find(MAGIC, at + 1)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    found = max(candidates(data), key=len, default=None)
    if found is None:
        print(f"image_btf.py: no BTF in {sys.argv[1]}", file=sys.stderr)
        return 1
    with open(sys.argv[2], "wb") as f:
        f.write(found)
    print(f"image_btf.py: {len(found)} bytes of BTF from {sys.argv[1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

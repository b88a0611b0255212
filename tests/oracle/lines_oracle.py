#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Source lines and inlined frames against binutils' addr2line.

usage: lines_oracle.py SRC_LOOKUP FILE...   (?FILE: checked only when it exists)

For each FILE, the addresses of every STEP-th instruction of its code (as
objdump -d lists them: a superset of what a profile samples) are looked up by
unwprof (tests/oracle/src_lookup.c) and by `addr2line -a -f -i -C -e FILE`
in one batched run each; the answers must agree frame by frame: function,
file and line, innermost inlined function first. The differences binutils
is known to have are counted apart, each with its reason, and allowed:

- no-dwarf: unwprof has no line where the file has no DWARF line for the
  address (crt files, PLT, .init); addr2line prints the name of the file a
  local STT_FILE symbol gives, or "??", and "?" for the line.
- alias: the outermost function, named from the symbol table by both, is an
  alias of the same address: unwprof prefers the global name (abort),
  addr2line a local one (__GI_abort).
- clone: the outermost function is a part GCC split off (foo.cold,
  foo.part.0): unwprof names the symbol that covers the address, addr2line
  the DW_TAG_subprogram (foo).
- llvm: addr2line (binutils 2.40) counts the files of a DWARF 5 line table
  from 1 as earlier versions do (DWARF 5 counts them from 0: GCC's libc
  then shows strfromd.c:73 for strfrom-skeleton.c:73), leaves an inlined
  call out of the chain when its address ranges are a range list index
  (DW_FORM_rnglistx, as clang writes them), or names a static inline
  function of GCC's C++ as the function it was inlined into: counted here
  only when llvm-symbolizer, a third reader, gives unwprof's chain (its
  outermost name as the symbol table or the DWARF has it, as above).
- padding: an address past the end of its function's symbol and of every
  DW_TAG_subprogram (the alignment padding after a function, which the line
  table may still cover): unwprof names no function, addr2line the nearest
  symbol before it, and a line where unwprof's unit ranges end.

Exit status 0 when every address agrees or differs only as above, 1
otherwise (the first differences printed), 77 when addr2line, objdump, nm
or llvm-symbolizer is missing.
"""
import bisect
import os
import re
import shutil
import subprocess
import sys
import time

STEP = int(os.environ.get('LINES_ORACLE_STEP', '3'))
CLONE = re.compile(r'\.(cold|part\.\d+|isra\.\d+|constprop\.\d+|lto_priv\.\d+)(\.\d+)?')


def clone_of(name):
    """The function a GCC clone was split off: foo of foo.cold, "foo() [clone .isra.0]", "foo() (.isra.0)"."""
    name = re.sub(r' \[clone [^\]]*\]', '', name)  # GNU's demangler
    name = re.sub(r' \(\.[a-z_]+(\.\d+)?\)', '', name)  # LLVM's
    return CLONE.sub('', name)


def code_addresses(path):
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', path], check=True,
                         capture_output=True, text=True).stdout
    addrs = []
    for line in out.splitlines():
        m = re.match(r'^ +([0-9a-f]+):', line)
        if m:
            addrs.append(m.group(1))
    return addrs[::STEP]


def parse(text):
    """{address: [(function, file, line)]} from addr2line -a -f -i output."""
    result = {}
    frames = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x') and (i + 1 >= len(lines) or ':' not in lines[i]):
            frames = []
            result[int(lines[i], 16)] = frames
            i += 1
            continue
        name = lines[i]
        where = lines[i + 1] if i + 1 < len(lines) else '??:0'
        where = re.sub(r' \(discriminator \d+\)$', '', where)
        file, _, line = where.rpartition(':')
        frames.append((name, file, 0 if line in ('?', '') else int(line)))
        i += 2
    return result


def debug_file(path):
    """The separate debug file by build ID, as unwprof and addr2line find it, or None."""
    notes = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]{2})([0-9a-f]+)', notes)
    if not m:
        return None
    debug = f'/usr/lib/debug/.build-id/{m.group(1)}/{m.group(2)}.debug'
    return debug if os.path.exists(debug) else None


def symbols(path):
    """{name: set of addresses} of function symbols, and their sorted [start, end)."""
    out = ''
    for f in filter(None, (path, debug_file(path))):
        out += subprocess.run(['nm', '-S', '-C', '--defined-only', f], capture_output=True,
                              text=True).stdout
    out += subprocess.run(['nm', '-S', '-D', '-C', '--defined-only', path], capture_output=True,
                          text=True).stdout
    addr_of, ranges = {}, []
    for line in out.splitlines():
        parts = line.split(' ', 3)
        if len(parts) == 3:
            parts.insert(1, '0')
        if len(parts) == 4 and parts[2] in 'TtWwi':
            a = int(parts[0], 16)
            name = parts[3].split('@')[0]
            addr_of.setdefault(name, set()).add(a)
            ranges.append((a, a + max(int(parts[1], 16), 1)))
    ranges.sort()
    return addr_of, ranges


def in_symbol(ranges, addr):
    i = bisect.bisect_right(ranges, (addr, float('inf')))
    return any(lo <= addr < hi for lo, hi in ranges[max(0, i - 8):i])


def outer_names(addr, o, t, syms):
    """None when the outermost names agree, else the known reason or 'unexplained'."""
    addr_of, ranges = syms
    if o == t:
        return None
    if addr_of.get(o, set()) & addr_of.get(t, set()):
        return 'alias'
    if o != clone_of(o) and clone_of(o) == clone_of(t):
        return 'clone'
    if o == '??' and not in_symbol(ranges, addr):
        return 'padding'
    return 'unexplained'


def classify(addr, ours, theirs, syms):
    """None when they agree, else the reason of a known difference or 'unexplained'."""
    if ours == theirs:
        return None
    addr_of, ranges = syms
    if ours == [('??', '??', 0)] and len(theirs) == 1 and not in_symbol(ranges, addr):
        return 'padding'
    if len(ours) == 1 and ours[0][1] == '??' and all(f[2] == 0 for f in theirs):
        if len(theirs) == 1 and (ours[0][0] == theirs[0][0] or '??' in (ours[0][0], theirs[0][0])
                                 or addr_of.get(ours[0][0], set()) & addr_of.get(theirs[0][0], set())):
            return 'no-dwarf'
    if len(ours) != len(theirs):
        return 'unexplained'
    for i, (o, t) in enumerate(zip(ours, theirs)):
        if o[1:] != t[1:]:
            return 'unexplained'
        if o[0] != t[0] and i != len(ours) - 1:
            return 'unexplained'
    return outer_names(addr, ours[-1][0], theirs[-1][0], syms)


def llvm_symbolizer(path, addrs):
    """{address: frames} as llvm-symbolizer gives them, without the columns."""
    out = subprocess.run(['llvm-symbolizer', '--obj=' + path, '--inlining', '--demangle',
                          '--output-style=LLVM'] + [hex(a) for a in addrs],
                         capture_output=True, text=True).stdout
    result = {}
    for a, block in zip(addrs, out.strip('\n').split('\n\n')):
        lines = block.split('\n')
        frames = []
        for name, where in zip(lines[0::2], lines[1::2]):
            parts = where.split(':')
            if len(parts) >= 3 and parts[-1].isdigit() and parts[-2].isdigit():
                file, line = ':'.join(parts[:-2]), int(parts[-2])
            else:
                file, line = where.rpartition(':')[0] or '??', 0
            frames.append((name, file, line))
        result[a] = frames
    return result


def check(src_lookup, path):
    addrs = code_addresses(path)
    stdin = '\n'.join(addrs) + '\n'
    t0 = time.monotonic()
    ours = subprocess.run([src_lookup, path], input=stdin, capture_output=True, text=True)
    t1 = time.monotonic()
    theirs = subprocess.run(['addr2line', '-a', '-f', '-i', '-C', '-e', path], input=stdin,
                            capture_output=True, text=True)
    t2 = time.monotonic()
    if ours.returncode:
        print(f'{path}: src_lookup failed: {ours.stderr}')
        return False
    ours, theirs = parse(ours.stdout), parse(theirs.stdout)
    syms = symbols(path)
    counts, bad = {}, []
    inlined = 0
    for a in sorted(ours):
        o, t = ours[a], theirs.get(a, [])
        inlined += len(o) > 1
        why = classify(a, o, t, syms)
        if why:
            counts[why] = counts.get(why, 0) + 1
            if why == 'unexplained':
                bad.append((a, o, t))
    if bad and shutil.which('llvm-symbolizer'):
        third = llvm_symbolizer(path, [a for a, _, _ in bad])
        still = []
        for a, o, t in bad:
            if classify(a, o, third.get(a, []), syms) in (None, 'alias', 'clone'):
                counts['unexplained'] -= 1
                counts['llvm'] = counts.get('llvm', 0) + 1
            else:
                still.append((a, o, t))
        if not counts['unexplained']:
            del counts['unexplained']
        bad = still
    agree = len(ours) - sum(counts.values())
    print(f'{path}: {len(ours)} addresses ({inlined} in inlined code), {agree} agree, '
          f'known differences {dict(sorted((k, v) for k, v in counts.items() if k != "unexplained"))}, '
          f'{len(bad)} unexplained; unwprof {t1 - t0:.2f} s, addr2line {t2 - t1:.2f} s')
    for a, o, t in bad[:10]:
        print(f'  0x{a:x}:\n    unwprof   {o}\n    addr2line {t}')
    return not bad and len(ours) == len(addrs)


def main():
    if len(sys.argv) < 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 64
    for tool in ('addr2line', 'objdump', 'nm', 'llvm-symbolizer'):
        if not shutil.which(tool):
            print(f'{tool} not found (binutils, llvm)')
            return 77
    ok = True
    for path in sys.argv[2:]:
        if path.startswith('?'):
            path = path[1:]
            if not os.path.exists(path):
                print(f'{path}: not built, not checked')
                continue
        if not os.path.exists(path):
            print(f'{path}: not found')
            ok = False
            continue
        ok = check(sys.argv[1], path) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare the function names unwprof gives Go code with Go's own tools.

usage: go_symbols.py [--go GO] SYM_LOOKUP --build SRC_DIR
       go_symbols.py [--go GO] SYM_LOOKUP --tool NAME

--build: builds the Go program in SRC_DIR several ways, each with symbols and
without (-ldflags='-s -w'): plain; PIE (its table in .data.rel.ro.gopclntab);
and when a C compiler is there, with cgo (C code ahead of Go's in .text, so
.text does not start at runtime.text) and with cgo as PIE (the external
linker merges the table into .data.rel.ro). The entry, middle and last byte
of every function `go tool nm -size` lists in the binary with symbols are
looked up with SYM_LOOKUP (unwprof's symbolizer):
  - in the stripped binary, unwprof reads Go's table: the names must be those
    `go tool addr2line` gives on the binary with symbols, or for a PIE, where
    addr2line cannot find the table before Go 1.20, those of gosym_ref (Go's
    debug/gosym, built from gosym_ref/ here), which must agree with
    addr2line where addr2line can read the table;
  - in the binary with symbols, .symtab names win: the name must be one
    `go tool nm` gives that address (nm keeps suffixes such as ".abi0" and
    element counts in type..eq.[5]T that the Go table does not).

--tool: a tool of the Go installation (Debian ships them stripped), e.g.
compile: addresses spread over its .text, named by `go tool addr2line` on
the same file, must get the same names from SYM_LOOKUP; where addr2line
knows no function, neither may unwprof.

Exit status: 0 when every name agrees, 1 on a disagreement, 2 when a build
or a tool fails, 77 (skip) when go (or the --tool) is not installed.
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
MAX_LISTED = 20
MIN_ADDRESSES = 300
TOOL_SAMPLES = 4000


class ToolError(Exception):
    pass


def run(cmd, env=None, cwd=None, stdin=None):
    proc = subprocess.run(cmd, env=env, cwd=cwd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError("%s failed (%d): %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
    return proc.stdout


def elf_sections(path):
    """{name: (addr, size)} of an ELF64 little-endian file, read by hand."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ToolError("%s: not a little-endian ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = headers[shstrndx][4]
    sections = {}
    for h in headers[1:]:
        end = data.index(b"\0", strtab_off + h[0])
        sections[data[strtab_off + h[0]:end].decode()] = (h[3], h[5])
    return sections


def go_env(go, env):
    """The environment for go: no network, no toolchain switch, a cache that works."""
    env = dict(env, GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="", GO111MODULE="on")
    proc = subprocess.run([go, "env", "GOCACHE"], env=env, capture_output=True, text=True)
    cache = proc.stdout.strip()
    if proc.returncode != 0 or not cache or cache == "off":
        env["GOCACHE"] = os.path.join(tempfile.gettempdir(), "unwprof-go-cache")
    return env


def addr2line(go, env, path, pcs):
    """The function go tool addr2line names at each pc, None for '?'."""
    out = run([go, "tool", "addr2line", path], env=env,
              stdin="".join("0x%x\n" % pc for pc in pcs)).splitlines()
    if len(out) != 2 * len(pcs):
        raise ToolError("go tool addr2line %s: %d lines for %d addresses" % (path, len(out), len(pcs)))
    names = out[0::2]
    return {pc: (None if name == "?" else name) for pc, name in zip(pcs, names)}


def unwprof_names(sym_lookup, path, pcs):
    """The name unwprof's symbolizer gives each pc, None when none."""
    out = run([sym_lookup, path], stdin="".join("%x\n" % pc for pc in pcs)).splitlines()
    names = {}
    for line in out:
        addr, rest = line.split(" ", 1)
        names[int(addr, 16)] = None if rest == "?" else rest.rsplit(" ", 1)[0]
    if len(names) != len(set(pcs)):
        raise ToolError("%s %s: %d answers for %d addresses" % (sym_lookup, path, len(names), len(pcs)))
    return names


def gosym_ref(go, env, tmp, path, pcs):
    """The function Go's debug/gosym names at each pc of path (with symbols), None for '?'."""
    ref = os.path.join(tmp, "gosym_ref")
    if not os.path.exists(ref):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gosym_ref")
        run([go, "build", "-o", ref, "."], env=dict(env, CGO_ENABLED="0"), cwd=src)
    out = run([ref, path], stdin="".join("%x\n" % pc for pc in pcs)).splitlines()
    if len(out) != len(pcs):
        raise ToolError("gosym_ref %s: %d lines for %d addresses" % (path, len(out), len(pcs)))
    return {pc: (None if name == "?" else name) for pc, name in zip(pcs, out)}


def nm_names(go, env, path):
    """{pc: names}: entry, middle and last byte of every sized text symbol of go tool nm."""
    names = {}
    for line in run([go, "tool", "nm", "-size", "-sort", "address", path], env=env).splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[2] in ("T", "t") and int(fields[1]) > 0:
            addr, size = int(fields[0], 16), int(fields[1])
            for pc in (addr, addr + size // 2, addr + size - 1):
                names.setdefault(pc, set()).add(fields[3])
    return names


def compare(label, reference, got, only_named, who="go tool addr2line"):
    """
    Disagreements of got with reference (a name, None, or a set of names
    for any of which will do), printed; only_named: skip what it does not name.
    """
    bad = []
    for pc, want in sorted(reference.items()):
        if only_named and want is None:
            continue
        have = got.get(pc)
        if have not in want if isinstance(want, set) else have != want:
            bad.append((pc, want, have))
    for pc, want, have in bad[:MAX_LISTED]:
        if isinstance(want, set):
            want = " or ".join(sorted(want))
        print("  %s: 0x%x: %s says %s, unwprof %s" % (label, pc, who, want, have))
    if len(bad) > MAX_LISTED:
        print("  %s: ... %d more" % (label, len(bad) - MAX_LISTED))
    return len(bad)


def variants(go, env):
    """Name, -buildmode, -ldflags and environment of each build."""
    nocgo = dict(env, CGO_ENABLED="0")
    yield "plain", "exe", "", nocgo
    yield "pie", "pie", "", nocgo
    cc = subprocess.run([go, "env", "CC"], env=env, capture_output=True, text=True).stdout.strip()
    if not cc or not shutil.which(cc):
        print("cgo variants skipped: no C compiler (%s)" % (cc or "go env CC is empty"))
        return
    cgo = dict(env, CGO_ENABLED="1")
    yield "cgo", "exe", "", cgo
    yield "cgo-pie", "pie", "-linkmode=external", cgo


def check_variant(go, sym_lookup, src, tmp, variant):
    """Builds one variant with and without symbols; returns the number of disagreements."""
    name, buildmode, ldflags, env = variant
    full = os.path.join(tmp, name)
    stripped = os.path.join(tmp, name + "-stripped")
    for out, flags in ((full, ldflags), (stripped, "-s -w " + ldflags)):
        run([go, "build", "-buildmode=" + buildmode, "-ldflags=" + flags, "-o", out, "."],
            env=env, cwd=src)
    if ".symtab" in elf_sections(stripped):
        raise ToolError("%s: -ldflags='-s -w' left a .symtab" % stripped)
    nm = nm_names(go, env, full)
    pcs = sorted(nm)
    reference, who = gosym_ref(go, env, tmp, full, pcs), "debug/gosym"
    if buildmode != "pie":
        a2l = addr2line(go, env, full, pcs)
        if compare(name + " (the references)", a2l, reference, False, "addr2line"):
            raise ToolError("%s: go tool addr2line and debug/gosym disagree" % full)
        reference, who = a2l, "go tool addr2line"
    named = [pc for pc in pcs if reference[pc] is not None]
    if len(named) < MIN_ADDRESSES:
        raise ToolError("%s: only %d addresses in Go functions" % (full, len(named)))
    bad = compare(name + "-stripped", reference, unwprof_names(sym_lookup, stripped, pcs), True, who)
    full_bad = compare(name, nm, unwprof_names(sym_lookup, full, pcs), False, "go tool nm")
    print("%s: stripped: %d addresses in %d Go functions, reference %s: %d disagree; "
          "with symbols: %d addresses, reference go tool nm: %d disagree" %
          (name, len(named), len({reference[pc] for pc in named}), who, bad, len(pcs), full_bad))
    return bad + full_bad


def check_build(go, sym_lookup, src, env):
    bad = 0
    with tempfile.TemporaryDirectory(prefix="unwprof-go-") as tmp:
        for variant in variants(go, env):
            bad += check_variant(go, sym_lookup, src, tmp, variant)
    return bad


def check_tool(go, sym_lookup, tool, env):
    tool_dir = run([go, "env", "GOTOOLDIR"], env=env).strip()
    path = os.path.join(tool_dir, tool)
    if not os.path.exists(path):
        print("SKIP: %s is not installed" % path)
        return None
    sections = elf_sections(path)
    addr, size = sections[".text"]
    pcs = sorted({addr + i * size // TOOL_SAMPLES for i in range(TOOL_SAMPLES)} | {addr + size - 1})
    reference = addr2line(go, env, path, pcs)
    bad = compare(tool, reference, unwprof_names(sym_lookup, path, pcs), False)
    named = [pc for pc in pcs if reference[pc] is not None]
    print("%s (%s): %d addresses, %d in %d Go functions; disagreements: %d" %
          (path, "stripped" if ".symtab" not in sections else "with symbols", len(pcs), len(named),
           len({reference[pc] for pc in named}), bad))
    if len(named) < MIN_ADDRESSES:
        raise ToolError("%s: only %d addresses in Go functions" % (path, len(named)))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--go", default="go")
    ap.add_argument("sym_lookup")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--build", metavar="SRC_DIR")
    mode.add_argument("--tool", metavar="NAME")
    args = ap.parse_args()

    go = shutil.which(args.go)
    if not go:
        print("SKIP: %s is not installed (Debian: apt-get install golang-go)" % args.go)
        return SKIP
    env = go_env(go, os.environ)
    try:
        if args.build:
            bad = check_build(go, args.sym_lookup, args.build, env)
        else:
            bad = check_tool(go, args.sym_lookup, args.tool, env)
            if bad is None:
                return SKIP
    except (ToolError, OSError, KeyError) as e:
        print("error: %s" % e)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

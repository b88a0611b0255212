#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What `unwprof dump-unwind --summary --json` says of a CPython interpreter
(the "python" object: core/runtimes/python/pyruntime.h) checked against independent sources:

 - every offset against the DWARF of the build, read by gdb
   (`print (long)&((T *)0)->f`, `ptype/o` for the bits of a string's state);
   Debian's /usr/bin/python3.11 is stripped, so its offsets are checked
   against the DWARF of a pyenv build of the same minor version (--dwarf);
 - the addresses of _PyRuntime (3.6: interp_head), of the TLS key and of
   _PyEval_EvalFrameDefault (and its .cold part) against the symbol table
   (readelf -sW, or --dyn-syms for a stripped file);
 - the version against what the interpreter prints (sys.version_info).

For the CPythons of the sid root (setup.sh: $UNWPROF_SID_ROOT), stripped
too, the reference is their own DWARF, which their -dbg packages hold and
setup.sh keeps in $UNWPROF_SID_ROOT-dwarf: every offset read from
_Py_DebugOffsets is checked against it, and so is the .cold part of the
eval loop found in .eh_frame, against the symbol the DWARF file has.

Debian's arm64 python3.11 (setup.sh arm64), which this machine cannot run,
is checked against the DWARF of the same package version's python3.11d
(python3.11-dbg), its version against its package's.

Usage: python_runtime.py UNWPROF --pyenv 3.X
       python_runtime.py UNWPROF --debian /usr/bin/python3.11
       python_runtime.py UNWPROF --sid 3.14
       python_runtime.py UNWPROF --arm64
Exit 77 (skip) when the build, gdb or readelf is absent; a failure instead
when UNWPROF_REQUIRE_BPF=1 (CI), since setup.sh installs them there.
"""
import argparse
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys

# Each key of "offsets" as (DWARF type, member) by minor version: the first
# entry whose minor is <= the version's applies; None: the key is absent.
RUNTIME = "struct pyruntimestate"
CODE = "PyCodeObject"
IFRAME = "struct _PyInterpreterFrame"
FIELDS = {
    # 3.6 has no _PyRuntime: its anchor is interp_head, the head itself.
    "runtime.interpreters_head": [(7, (RUNTIME, "interpreters.head")), (6, ("const", 0))],
    "runtime.autoTSSkey": [(13, None), (12, (RUNTIME, "autoTSSkey")),
                           (7, (RUNTIME, "gilstate.autoTSSkey")), (6, None)],
    "interp.next": [(6, ("PyInterpreterState", "next"))],
    "interp.threads_head": [(11, ("PyInterpreterState", "threads.head")),
                            (6, ("PyInterpreterState", "tstate_head"))],
    "tstate.next": [(6, ("PyThreadState", "next"))],
    "tstate.thread_id": [(6, ("PyThreadState", "thread_id"))],
    "tstate.native_thread_id": [(11, ("PyThreadState", "native_thread_id")), (6, None)],
    "tstate.frame": [(13, ("PyThreadState", "current_frame")), (11, ("PyThreadState", "cframe")),
                     (6, ("PyThreadState", "frame"))],
    "cframe.current_frame": [(13, None), (11, ("_PyCFrame", "current_frame")), (6, None)],
    "frame.previous": [(11, (IFRAME, "previous")), (6, ("PyFrameObject", "f_back"))],
    "frame.code": [(13, (IFRAME, "f_executable")), (11, (IFRAME, "f_code")),
                   (6, ("PyFrameObject", "f_code"))],
    "frame.instr": [(13, (IFRAME, "instr_ptr")), (11, (IFRAME, "prev_instr")),
                    (6, ("PyFrameObject", "f_lasti"))],
    "frame.owner": [(11, (IFRAME, "owner")), (6, None)],
    "frame.is_entry": [(12, None), (11, (IFRAME, "is_entry")), (6, None)],
    "code.co_name": [(6, (CODE, "co_name"))],
    "code.co_qualname": [(11, (CODE, "co_qualname")), (6, None)],
    "code.co_filename": [(6, (CODE, "co_filename"))],
    "code.co_firstlineno": [(6, (CODE, "co_firstlineno"))],
    "code.co_linetable": [(10, (CODE, "co_linetable")), (6, None)],
    "code.co_lnotab": [(10, None), (6, (CODE, "co_lnotab"))],
    "code.co_code": [(11, None), (6, (CODE, "co_code"))],
    "code.co_code_adaptive": [(11, (CODE, "co_code_adaptive")), (6, None)],
    "bytes.ob_sval": [(13, ("PyBytesObject", "ob_sval")), (11, None),
                      (6, ("PyBytesObject", "ob_sval"))],
    "str.length": [(6, ("PyASCIIObject", "length"))],
    "str.state": [(6, ("PyASCIIObject", "state"))],
    "str.data": [(6, ("sizeof", "PyASCIIObject"))],
    "str.ascii_bit": [(6, ("bit", "ascii"))],
    "str.compact_bit": [(6, ("bit", "compact"))],
}

failures = 0


def fail(msg):
    global failures
    failures += 1
    print(f"FAIL: {msg}", file=sys.stderr)


def pick(key, minor):
    for since, what in FIELDS[key]:
        if minor >= since:
            return what
    return None


def gdb_offsets(path, minor):
    """The DWARF offset of every key that exists in this minor version."""
    want = {k: pick(k, minor) for k in FIELDS}
    want = {k: v for k, v in want.items() if v}
    cmds = ["set max-value-size unlimited", "set width 0"]
    order = []
    found = {}
    for key, (typ, member) in want.items():
        if typ == "bit":
            continue
        if typ == "const":
            found[key] = member
            continue
        # The key before each value, so that a print that failed leaves it empty.
        cmds.append(f"echo {key}=")
        if typ == "sizeof":
            cmds.append(f"print (long)sizeof({member})")
        else:
            cmds.append(f"print (long)&(({typ} *)0)->{member}")
        cmds.append("echo \\n")
        order.append(key)
    cmds.append("ptype/o PyASCIIObject")
    args = ["gdb", "-nx", "-batch"]
    for c in cmds:
        args += ["-ex", c]
    out = subprocess.run(args + [path], capture_output=True, text=True, timeout=120)
    lines = out.stdout.splitlines()
    for line in lines:
        m = re.match(r"([A-Za-z_.]+)=\$\d+ = (-?\d+)$", line)
        if m:
            found[m.group(1)] = int(m.group(2))
    for key in order:
        if key not in found:
            fail(f"{path}: gdb gave no value for {key} ({want[key]}): {out.stderr.strip()}")
    for line in lines:
        m = re.match(r"/\*\s+(\d+):\s*(\d+)\s*\|.*\b(ascii|compact)\s*:\s*1;", line)
        if m:
            found[f"str.{m.group(3)}_bit"] = int(m.group(2))
    return found


def symbols(path, dynamic):
    out = subprocess.run(["readelf", "-W", "--dyn-syms" if dynamic else "-s", path],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            size = int(f[2], 16) if f[2].startswith("0x") else int(f[2])
            syms.setdefault(f[7], (int(f[1], 16), size))
    return syms


def interpreter_version(interp, root=None):
    """What the interpreter says: sys.version_info and sys.hexversion (run inside root)."""
    run = ["chroot", root, interp[len(root):]] if root else [interp]
    out = subprocess.run(run + ["-S", "-c", "import sys; print(tuple(sys.version_info)); "
                          "print('%x' % sys.hexversion)"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return ast.literal_eval(out[0]), out[1]


def check_tls_code(path, py):
    """A stripped interpreter: its PyGILState_GetThisThreadState loads the key (mov ADDR(%rip),%edi)."""
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "disassemble PyGILState_GetThisThreadState",
                          path], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"mov\s+0x[0-9a-f]+\(%rip\),%edi\s+# (0x[0-9a-f]+)", out)
    if not m:
        print(f"{path}: PyGILState_GetThisThreadState does not load the key itself", file=sys.stderr)
        return
    if py.get("tls_key") is None or int(py["tls_key"], 16) != int(m.group(1), 16):
        fail(f"tls_key {py.get('tls_key')}, PyGILState_GetThisThreadState reads the key at {m.group(1)}")


def skip(reason):
    """Skip (77), or fail in CI (UNWPROF_REQUIRE_BPF=1), where setup.sh installs the builds."""
    if os.environ.get("UNWPROF_REQUIRE_BPF") == "1":
        print(f"FAIL: {reason} (UNWPROF_REQUIRE_BPF=1: setup.sh installs them)", file=sys.stderr)
        return 1
    print(f"SKIP: {reason}", file=sys.stderr)
    return 77


def pyenv_build(minor):
    """The newest pyenv build of 3.MINOR (its root from `pyenv root`, $PYENV_ROOT or ~/.pyenv)."""
    root = os.environ.get("PYENV_ROOT")
    if shutil.which("pyenv"):
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
    root = root or os.path.expanduser("~/.pyenv")
    found = []
    for d in glob.glob(os.path.join(root, "versions", f"3.{minor}.*")):
        m = re.fullmatch(rf"3\.{minor}\.(\d+)", os.path.basename(d))
        libs = glob.glob(os.path.join(d, "lib", f"libpython3.{minor}*.so.1.0"))
        interp = os.path.join(d, "bin", f"python3.{minor}")
        if m and libs and os.access(interp, os.X_OK):
            found.append((int(m.group(1)), libs[0], interp))
    return max(found)[1:] if found else (None, None)


def version_text(v):
    """sys.version_info as CPython's version string: 3.13.0, 3.13.0rc1."""
    major, minor, micro, level, serial = v
    tail = {"alpha": "a", "beta": "b", "candidate": "rc"}.get(level)
    return f"{major}.{minor}.{micro}" + (f"{tail}{serial}" if tail else "")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("unwprof")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--pyenv", metavar="3.X", help="the pyenv build of this minor version")
    g.add_argument("--debian", metavar="PATH",
                   help="Debian's stripped interpreter, checked against the pyenv build of its version")
    g.add_argument("--sid", metavar="3.X",
                   help="the sid root's python3.X, checked against its own DWARF")
    g.add_argument("--arm64", action="store_true",
                   help="the arm64 root's python3.11, checked against python3.11-dbg's DWARF")
    args = p.parse_args()
    for tool in ("gdb", "readelf"):
        if not shutil.which(tool):
            return skip(f"{tool} is not installed")
    if args.sid:
        root = os.environ.get("UNWPROF_SID_ROOT", "/var/cache/unwprof-tests/sid")
        interp = f"{root}/usr/bin/python{args.sid}"
        dwarf = f"{root}-dwarf/python{args.sid}.debug"
        if not os.access(interp, os.X_OK):
            return skip(f"no python{args.sid} in the sid root {root} (./setup.sh test builds it)")
        if not os.path.exists(dwarf):
            return skip(f"no DWARF of python{args.sid} in {dwarf} (./setup.sh test fetches it)")
        return check(args.unwprof, interp, interp, dwarf, root=root, own_dwarf=True)
    if args.arm64:
        return check_arm64(args.unwprof)
    if args.pyenv:
        minor = int(args.pyenv.split(".")[1])
        lib, interp = pyenv_build(minor)
        if not lib:
            return skip(f"no pyenv build of Python {args.pyenv} with a shared libpython "
                        "(pyenv install; PYTHON_CONFIGURE_OPTS=--enable-shared)")
        dwarf = None
    else:
        if not os.access(args.debian, os.X_OK):
            return skip(f"{args.debian} is not installed")
        lib = interp = args.debian
        minor = int(re.search(r"python3\.(\d+)", args.debian).group(1))
        dwarf, _ = pyenv_build(minor)
        if not dwarf:
            return skip(f"{args.debian} is stripped and there is no pyenv build of 3.{minor} "
                        "whose DWARF could stand in for its own")
    return check(args.unwprof, lib, interp, dwarf)


def check_arm64(unwprof):
    """Debian's arm64 python3.11 (setup.sh arm64), which this machine cannot run: its
    version from its package's, its offsets against the DWARF of python3.11-dbg's
    python3.11d, the same source built for debugging, of the same package version."""
    root = os.environ.get("UNWPROF_ARM64_ROOT", "/var/cache/unwprof-tests/arm64")
    interp = f"{root}/sysroot/usr/bin/python3.11"
    dwarf = f"{root}/dwarf/usr/bin/python3.11d"
    debs = glob.glob(f"{root}/debs/python3.11-minimal_*_arm64.deb")
    if not os.path.exists(interp) or not os.path.exists(dwarf) or not debs:
        return skip(f"no arm64 python3.11 and python3.11-dbg in {root} (./setup.sh arm64)")
    version = subprocess.run(["dpkg-deb", "-f", debs[0], "Version"], capture_output=True,
                             text=True, check=True).stdout.strip()
    m = re.match(r"(\d+)\.(\d+)\.(\d+)-", version)
    info = (int(m.group(1)), int(m.group(2)), int(m.group(3)), "final", 0)
    hexv = "%x" % (info[0] << 24 | info[1] << 16 | info[2] << 8 | 0xf0)
    return check(unwprof, interp, interp, dwarf, version=(info, hexv))


def check(unwprof, libpython, interpreter, dwarf_file, root=None, own_dwarf=False,
          version=None):
    out = subprocess.run([unwprof, "dump-unwind", "--summary", "--json", libpython],
                         capture_output=True, text=True)
    if out.returncode:
        print(out.stderr, file=sys.stderr)
        fail(f"dump-unwind {libpython} exited {out.returncode}")
        return 1
    py = json.loads(out.stdout).get("python")
    if not py:
        fail(f"{libpython}: dump-unwind found no CPython runtime")
        return 1
    print(f"{libpython}: {json.dumps(py)}", file=sys.stderr)

    info, hexv = version or interpreter_version(interpreter, root)
    ver = version_text(info)
    if py["version"] != ver:
        fail(f"version {py['version']}, {interpreter} says {ver} ({info})")
    if py.get("version_hex") and int(py["version_hex"], 16) != int(hexv, 16):
        fail(f"version_hex {py['version_hex']}, sys.hexversion is {hexv}")

    minor = info[1]
    dwarf = dwarf_file or libpython
    expect = gdb_offsets(dwarf, minor)
    got = py["offsets"]
    for key in sorted(set(expect) | set(got)):
        if got.get(key) != expect.get(key):
            fail(f"{key}: dump-unwind says {got.get(key)}, the DWARF of {dwarf} says {expect.get(key)}")

    syms = symbols(libpython, dwarf_file is not None)
    anchor = "_PyRuntime" if minor >= 7 else "interp_head"
    if anchor not in syms or int(py["runtime"], 16) != syms[anchor][0]:
        fail(f"runtime {py['runtime']}, readelf says {anchor} at {syms.get(anchor)}")
    if py["runtime_symbol"] != anchor:
        fail(f"runtime_symbol {py['runtime_symbol']}, expected {anchor}")
    ranges = [[int(lo, 16), int(hi, 16)] for lo, hi in py["eval_frame"]]
    # a .cold part no symbol names, found in .eh_frame, is e2e.py python-cold's to check
    # unless the file's own DWARF file has its symbol
    if py.get("cold_from") == ".eh_frame" and not own_dwarf:
        ranges = ranges[:1]
    if own_dwarf:
        syms.update({k: v for k, v in symbols(dwarf_file, False).items()
                     if k == "_PyEval_EvalFrameDefault.cold"})
    want = []
    for name in ("_PyEval_EvalFrameDefault", "_PyEval_EvalFrameDefault.cold"):
        if name in syms:
            want.append([syms[name][0], syms[name][0] + syms[name][1]])
    if ranges != want:
        fail(f"eval_frame {ranges}, readelf says {want}")
    if minor >= 7 and minor <= 12:
        key_addr = syms["_PyRuntime"][0] + expect["runtime.autoTSSkey"] + 4
    elif minor == 6:
        key_addr = syms["autoTLSkey"][0] if "autoTLSkey" in syms else None
    else:
        key_addr = None
    got_key = int(py["tls_key"], 16) if py.get("tls_key") else None
    if got_key != key_addr:
        fail(f"tls_key {py.get('tls_key')}, expected {key_addr and hex(key_addr)}")
    if minor >= 11 and "Py_Version" not in syms:
        fail(f"{libpython}: no Py_Version symbol")
    expected_source = "Py_Version" if minor >= 11 else "Py_GetVersion"
    if py["version_source"] != expected_source:
        fail(f"version_source {py['version_source']}, expected {expected_source}")
    expected_offsets = "_Py_DebugOffsets" if minor >= 13 else "table"
    if py["offsets_source"] != expected_offsets:
        fail(f"offsets_source {py['offsets_source']}, expected {expected_offsets}")
    # each offset's own source: 3.13 on, all from _Py_DebugOffsets but the bits of a
    # string's state, which it does not hold
    for key in got:
        want_src = ("constant" if key.endswith("_bit") else "_Py_DebugOffsets") \
            if minor >= 13 else "table"
        if py.get("offset_sources", {}).get(key) != want_src:
            fail(f"{key}: source {py.get('offset_sources', {}).get(key)}, expected {want_src}")
    if dwarf_file and not version:
        check_tls_code(libpython, py)
    if failures:
        return 1
    print(f"ok: {len(got)} offsets, version {ver}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The offsets `unwprof dump-unwind --json` gives for a CPython interpreter,
used the way the BPF walk will use them, on a live process.

A script of ours runs two threads, each parked in a chain of functions of
its own (a generator, a method, a lambda called from C by sorted()), and
prints what sys._current_frames() says of them: for each thread its ident
(pthread_self) and its frames, innermost first, as (name, file, line) — the
qualified name where the version has co_qualname. While they are parked, this
reads the process through /proc/PID/mem with nothing but dump-unwind's
offsets: _PyRuntime (3.6: interp_head) -> the interpreter -> its threads;
for each, its innermost frame and the chain of callers; for each frame, its
code object's names and file (compact ASCII strings) and the line, decoded
from the code object's line table at the frame's instruction (co_lnotab
3.6-3.9, co_linetable 3.10, the location table 3.11+). Each parked thread
must give the frames the script reports, and the TLS key's slot in each
thread's glibc TSD, where the version has a key, must hold that thread's
state. Root (or the right to read the child's memory) is needed.

Usage: python_live.py UNWPROF --pyenv 3.X | --debian /usr/bin/python3.11
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_runtime  # noqa: E402  (the same builds, found the same way)

SCRIPT = r'''
import sys, threading

ready = threading.Barrier(3)
done = threading.Event()

def report():
    out = []
    for t in threading.enumerate():
        if t is threading.main_thread():
            continue
        frames = []
        f = sys._current_frames()[t.ident]
        while f is not None:
            c = f.f_code
            frames.append([getattr(c, "co_qualname", c.co_name), c.co_filename, f.f_lineno])
            f = f.f_back
        out.append({"ident": t.ident, "frames": frames})
    print(repr(out).replace("'", '"'), flush=True)

class Parker:
    def park(self):
        # sorted() calls the key again: park once
        if not done.is_set():
            ready.wait()
            done.wait()

def gen():
    Parker().park()
    yield 1

def via_sorted():
    return sorted([2, 1], key=lambda x: [next(gen()), x][1])

def left():
    via_sorted()

def right_leaf():
    ready.wait()
    done.wait()

def right():
    right_leaf()

a = threading.Thread(target=left, name="left")
b = threading.Thread(target=right, name="right")
a.start(); b.start()
ready.wait()
import time
time.sleep(0.2)
report()
sys.stdin.readline()
done.set()
a.join(); b.join()
'''

failures = 0


def fail(msg):
    global failures
    failures += 1
    print(f"FAIL: {msg}", file=sys.stderr)


class Memory:
    def __init__(self, pid):
        self.f = open(f"/proc/{pid}/mem", "rb", buffering=0)

    def read(self, addr, n):
        self.f.seek(addr)
        return self.f.read(n)

    def u64(self, addr):
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def i32(self, addr):
        return struct.unpack("<i", self.read(addr, 4))[0]

    def u8(self, addr):
        return self.read(addr, 1)[0]


def load_bias(pid, path):
    """Where the file's first PT_LOAD is mapped, less its virtual address."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
    first = min(int(m.group(1), 16) for m in re.finditer(r"^\s+LOAD\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)",
                                                          out, re.M))
    real = os.path.realpath(path)
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and fields[5] == real and int(fields[2], 16) == 0:
                return int(fields[0].split("-")[0], 16) - (first & ~0xfff)
    raise RuntimeError(f"{real} is not mapped in {pid}")


class Walker:
    def __init__(self, mem, py, bias, code_type):
        self.mem, self.py, self.bias, self.code_type = mem, py, bias, code_type
        self.o = py["offsets"]
        self.minor = int(py["version"].split(".")[1])

    def string(self, obj):
        o = self.o
        state = self.mem.i32(obj + o["str.state"])
        if not (state >> o["str.ascii_bit"]) & 1 or not (state >> o["str.compact_bit"]) & 1:
            return None
        n = self.mem.u64(obj + o["str.length"])
        if n > 4096:
            return None
        return self.mem.read(obj + o["str.data"], n).decode()

    def bytes_(self, obj):
        # PyBytesObject: ob_size of PyVarObject at 16, the bytes at ob_sval
        n = self.mem.u64(obj + 16)
        return self.mem.read(obj + self.o.get("bytes.ob_sval", 32), n)

    def threads(self):
        o = self.o
        interp = self.mem.u64(self.bias + int(self.py["runtime"], 16) + o["runtime.interpreters_head"])
        t = self.mem.u64(interp + o["interp.threads_head"])
        seen = 0
        while t and seen < 64:
            yield t
            t = self.mem.u64(t + o["tstate.next"])
            seen += 1

    def frames(self, tstate):
        o = self.o
        f = self.mem.u64(tstate + o["tstate.frame"])
        if "cframe.current_frame" in o and f:
            f = self.mem.u64(f + o["cframe.current_frame"])
        out = []
        while f and len(out) < 256:
            code = self.mem.u64(f + o["frame.code"])
            # 3.12+: the shim frames of calls from C (FRAME_OWNED_BY_CSTACK) hold no code of ours
            shim = self.minor >= 12 and self.mem.u8(f + o["frame.owner"]) == 3
            if code and not shim and self.mem.u64(code + 8) == self.code_type:
                out.append(self.frame(f, code))
            f = self.mem.u64(f + o["frame.previous"])
        return out

    def frame(self, f, code):
        o = self.o
        name = self.string(self.mem.u64(code + o.get("code.co_qualname", o["code.co_name"])))
        filename = self.string(self.mem.u64(code + o["code.co_filename"]))
        first = self.mem.i32(code + o["code.co_firstlineno"])
        if self.minor >= 11:
            instr = self.mem.u64(f + o["frame.instr"])
            lasti = (instr - (code + o["code.co_code_adaptive"])) // 2
            line = location_line(self.bytes_(self.mem.u64(code + o["code.co_linetable"])), first, lasti)
        else:
            lasti = self.mem.i32(f + o["frame.instr"])
            if self.minor == 10:
                line = linetable_line(self.bytes_(self.mem.u64(code + o["code.co_linetable"])), first,
                                      lasti * 2)
            else:
                line = lnotab_line(self.bytes_(self.mem.u64(code + o["code.co_lnotab"])), first, lasti)
        return [name, filename, line]


def lnotab_line(tab, line, addr):
    """3.6-3.9 co_lnotab: (byte offset increment, signed line increment) pairs."""
    at = 0
    for i in range(0, len(tab) - 1, 2):
        at += tab[i]
        if at > addr:
            break
        line += struct.unpack("b", tab[i + 1:i + 2])[0]
    return line


def linetable_line(tab, line, addr):
    """3.10 co_linetable: (byte length, signed line delta; -128: no line) pairs."""
    end = 0
    for i in range(0, len(tab) - 1, 2):
        start, end = end, end + tab[i]
        delta = struct.unpack("b", tab[i + 1:i + 2])[0]
        cur = None if delta == -128 else line + delta
        if delta != -128:
            line += delta
        if start <= addr < end:
            return cur
    return None


def location_line(tab, line, index):
    """3.11+ location table (Objects/locations.md); index in code units."""
    pos, at = 0, 0

    def varint():
        nonlocal pos
        shift = val = 0
        while True:
            b = tab[pos]
            pos += 1
            val |= (b & 63) << shift
            shift += 6
            if not b & 64:
                return val

    def svarint():
        v = varint()
        return -(v >> 1) if v & 1 else v >> 1

    while pos < len(tab):
        first = tab[pos]
        pos += 1
        code, length = (first >> 3) & 15, (first & 7) + 1
        cur = line
        if code == 15:
            cur = None
        elif code == 14:
            line += svarint()
            cur = line
            varint(), varint(), varint()
        elif code == 13:
            line += svarint()
            cur = line
        elif code >= 10:
            line += code - 10
            cur = line
            pos += 2
        else:
            pos += 1
        if at <= index < at + length:
            return cur
        at += length
    return None


def glibc_tsd_known():
    """The TSD layout read below is glibc 2.36-2.39's (x86_64)."""
    m = re.fullmatch(r"glibc 2\.(\d+)", os.confstr("CS_GNU_LIBC_VERSION") or "")
    return bool(m) and 36 <= int(m.group(1)) <= 39


def check(unwprof, libpython, interpreter):
    out = subprocess.run([unwprof, "dump-unwind", "--summary", "--json", libpython],
                         capture_output=True, text=True, check=True)
    py = json.loads(out.stdout).get("python")
    if not py:
        fail(f"{libpython}: dump-unwind found no CPython runtime")
        return 1
    syms = python_runtime.symbols(libpython, True)
    if "PyCode_Type" not in syms:
        fail(f"{libpython}: no PyCode_Type in .dynsym")
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SCRIPT)
        script = f.name
    proc = subprocess.Popen([interpreter, "-S", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        expect = json.loads(proc.stdout.readline())
        tls = "no TLS key"
        mem = Memory(proc.pid)
        bias = load_bias(proc.pid, libpython)
        walker = Walker(mem, py, bias, bias + syms["PyCode_Type"][0])
        walked = {}
        for t in walker.threads():
            walked[mem.u64(t + py["offsets"]["tstate.thread_id"])] = (t, walker.frames(t))
        for want in expect:
            got = walked.get(want["ident"])
            if not got:
                fail(f"thread {want['ident']:#x}: not in the interpreter's thread list "
                     f"({[hex(k) for k in walked]})")
                continue
            frames = [[n, os.path.basename(fn or ""), line] for n, fn, line in got[1]]
            wanted = [[n, os.path.basename(fn), line] for n, fn, line in want["frames"]]
            print(f"thread {want['ident']:#x}: {frames}", file=sys.stderr)
            if frames != wanted:
                fail(f"thread {want['ident']:#x}: walked {frames}, the script says {wanted}")
            # glibc 2.36-2.39 x86_64: the TSD of key k < 32 is at pthread_self + 784 + 16 k, value at +8
            if py.get("tls_key") and glibc_tsd_known():
                key = mem.i32(bias + int(py["tls_key"], 16))
                if 0 <= key < 32:
                    slot = mem.u64(want["ident"] + 784 + 16 * key + 8)
                    tls = f"TLS key {key} holds each one's state"
                    if slot != got[0]:
                        fail(f"thread {want['ident']:#x}: TLS key {key} holds {slot:#x}, "
                             f"its thread state is {got[0]:#x}")
        if len(expect) != 2:
            fail(f"the script reports {len(expect)} threads, not 2")
    finally:
        proc.stdin.write("\n")
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            fail("the script did not end")
            proc.kill()
            proc.wait()
        os.unlink(script)
    if failures:
        return 1
    print(f"ok: {py['version']}, both threads walked, {tls}", file=sys.stderr)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("unwprof")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--pyenv", metavar="3.X")
    g.add_argument("--debian", metavar="PATH")
    args = p.parse_args()
    if args.pyenv:
        lib, interp = python_runtime.pyenv_build(int(args.pyenv.split(".")[1]))
        if not lib:
            return python_runtime.skip(f"no pyenv build of Python {args.pyenv} with a shared libpython")
    else:
        if not os.access(args.debian, os.X_OK):
            return python_runtime.skip(f"{args.debian} is not installed")
        lib = interp = args.debian
    try:
        open(f"/proc/{os.getpid()}/mem", "rb").close()
    except OSError as e:
        return python_runtime.skip(f"cannot read process memory: {e}")
    return check(args.unwprof, lib, interp)


if __name__ == "__main__":
    sys.exit(main())

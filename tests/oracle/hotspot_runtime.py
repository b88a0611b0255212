#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What unwprof reads of a running JVM, checked against the JVM's own views.

    hotspot_runtime.py HS_LAYOUT --java-home DIR

A small Java program (compiled here with DIR's javac) runs in DIR's java;
hs_layout (tests/oracle/hs_layout.c) prints what unwprof reads of it
(core/runtimes/hotspot/): the offsets, sizes and constants taken from the
JVM's tables in its memory, and its code cache. The Serviceability Agent
(DIR/bin/jhsdb clhsdb --pid: vmstructsdump, intConstant) reads the same
tables its own way: every field offset, type size and int constant
unwprof gives must be the SA's (a static field's address is not printed by
the SA; those lead to the code heaps, whose bounds must be what
`jcmd PID Compiler.codecache` prints: low, committed end, high).

Exit 0 when all agree, 1 when one does not, 77 (skip) without the JDK's
tools.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SKIP = 77

PROGRAM = """
public class HsOracle {
	public static void main(String[] args) throws Exception {
		System.out.println("ready");
		System.out.flush();
		long x = 0;
		long end = System.nanoTime() + 120_000_000_000L;
		while (System.nanoTime() < end)
			for (int i = 0; i < 100000; i++)
				x = x * 31 + i;
		System.out.println(x);
	}
}
"""


def sa_tables(jhsdb, pid):
    """The SA's view: fields {"Type::field": offset}, sizes {type: size}, ints {name: value}."""
    out = subprocess.run([jhsdb, "clhsdb", "--pid", str(pid)],
                         input="vmstructsdump\nintConstant\n", capture_output=True,
                         text=True, timeout=120).stdout
    fields, sizes, ints = {}, {}, {}
    for line in out.splitlines():
        line = line.removeprefix("hsdb> ")
        m = re.match(r"field (\S+) (\S+) .* (true|false) (\d+) 0x[0-9a-f]+$", line)
        if m and m.group(3) == "false":
            fields[m.group(1) + "::" + m.group(2)] = int(m.group(4))
            continue
        m = re.match(r"type (\S+) \S+ (?:true|false) (?:true|false) (?:true|false) (-?\d+)$", line)
        if m:
            sizes[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r"intConstant (\S+) (-?\d+)$", line)
        if m:
            ints[m.group(1)] = int(m.group(2))
    return fields, sizes, ints


def jcmd_heaps(jcmd, pid):
    """Each code heap's [low, committed end, high], from jcmd Compiler.codecache."""
    out = subprocess.run([jcmd, str(pid), "Compiler.codecache"], capture_output=True,
                         text=True, timeout=60).stdout
    return sorted(tuple(int(v, 16) for v in m)
                  for m in re.findall(r"bounds \[(0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+)\]",
                                      out))


def check(layout, cache, fields, sizes, ints, heaps):
    errors = []
    compared = 0
    for key, value in layout.items():
        if key in ("structs", "types", "int_constants", "long_constants"):
            continue
        if isinstance(value, str):
            continue  # a static field's address: checked through the heaps
        if "::" in key and key in fields:
            want = fields[key]
        elif key in sizes:
            want = sizes[key]
        elif key in ints:
            want = ints[key]
        elif key in ("frame::interpreter_frame_method_offset",
                     "frame::interpreter_frame_bcp_offset"):
            continue  # derived from frame::interpreter_frame_last_sp_offset (x86-64's layout)
        elif key == "nmethod::_method" and "CompiledMethod::_method" in fields:
            want = fields["CompiledMethod::_method"]
        elif key == "GrowableArrayBase::_len" and "GrowableArrayBase::_len" not in fields:
            errors.append(f"{key}: not in the SA's tables")
            continue
        else:
            errors.append(f"{key}: unwprof read {value}, the SA has no such entry")
            continue
        compared += 1
        if want != value:
            errors.append(f"{key}: unwprof read {value}, the SA {want}")
    ours = sorted((int(h["low"], 16), int(h["committed"], 16), int(h["high"], 16))
                  for h in cache["heaps"])
    if ours != heaps:
        errors.append(f"code heaps: unwprof read {[tuple(map(hex, h)) for h in ours]}, "
                      f"jcmd {[tuple(map(hex, h)) for h in heaps]}")
    low, high = (int(v, 16) for v in cache["bounds"])
    if heaps and (low > min(h[0] for h in heaps) or high < max(h[2] for h in heaps)):
        errors.append(f"code cache bounds {cache['bounds']} do not hold every heap")
    return compared, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hs_layout")
    ap.add_argument("--java-home", required=True)
    args = ap.parse_args()
    tool = {t: os.path.join(args.java_home, "bin", t) for t in ("java", "javac", "jhsdb", "jcmd")}
    libjvm = os.path.realpath(os.path.join(args.java_home, "lib", "server", "libjvm.so"))
    missing = [p for p in list(tool.values()) + [libjvm] if not os.path.exists(p)]
    if missing:
        print(f"skip: {', '.join(missing)} not installed", file=sys.stderr)
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "HsOracle.java"), "w") as f:
            f.write(PROGRAM)
        subprocess.run([tool["javac"], "-d", tmp, os.path.join(tmp, "HsOracle.java")],
                       check=True)
        proc = subprocess.Popen([tool["java"], "-cp", tmp, "HsOracle"], stdout=subprocess.PIPE,
                                text=True)
        try:
            proc.stdout.readline()
            time.sleep(1)  # the loop compiled: every heap has code
            r = subprocess.run([args.hs_layout, str(proc.pid), libjvm], capture_output=True,
                               text=True)
            if r.returncode:
                print(f"hs_layout failed: {r.stderr.strip()}", file=sys.stderr)
                return 1
            got = json.loads(r.stdout)
            heaps = jcmd_heaps(tool["jcmd"], proc.pid)
            fields, sizes, ints = sa_tables(tool["jhsdb"], proc.pid)
        finally:
            proc.kill()
            proc.wait()
    if not fields or not heaps:
        print("the SA or jcmd printed nothing", file=sys.stderr)
        return 1
    compared, errors = check(got["layout"], got["code_cache"], fields, sizes, ints, heaps)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{libjvm}: {compared} entries against the SA, {len(heaps)} code heaps against jcmd: "
          f"{'ok' if not errors else str(len(errors)) + ' differ'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

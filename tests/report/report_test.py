#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of `unwprof report` and of the pprof files unwprof writes.

    report_test.py TEST UNWPROF FIXTURES [PPROF_WRITER] [CPUPROF_GO]

TEST is one of: go-tool, go-profile, round-trip, diff, diff-gate, diff-pprof, formats,
errors, record.
Exit 0 on success, 1 on failure, 77 to skip (a tool is absent, or record
needs root and BPF; UNWPROF_REQUIRE_BPF=1 turns that skip into a failure).
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, env=None, stdin=None, timeout=120):
    return subprocess.run(args, env=env, stdin=stdin, capture_output=True, text=True,
                          timeout=timeout)


def table_rows(out, header):
    """The lines after the table header that starts with header."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [header]:
            return lines[i + 1:]
    return []


def go_env(tmp):
    """Go without network and without touching the user's caches."""
    env = dict(os.environ)
    env.update(HOME=tmp, GOCACHE=os.path.join(tmp, "gocache"), GOPATH=os.path.join(tmp, "gopath"),
               GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local", CGO_ENABLED="0",
               PPROF_TMPDIR=tmp)
    return env


def find_go():
    go = shutil.which("go")
    if not go:
        print("go is not installed (Debian package golang-go)", file=sys.stderr)
        sys.exit(SKIP)
    return go


def test_go_tool(unwprof, fixtures, writer, _cpuprof, tmp):
    """go tool pprof reads what unwprof writes, without a warning."""
    go = find_go()
    env = go_env(tmp)
    path = os.path.join(tmp, "demo.pb.gz")
    r = run([writer, "--write", path])
    check(r.returncode == 0, f"the pprof writer failed: {r.stderr}")
    raw = run([go, "tool", "pprof", "-raw", path], env=env)
    check(raw.returncode == 0, f"go tool pprof -raw failed: {raw.stderr}")
    check(raw.stderr.strip() == "", f"go tool pprof -raw warned: {raw.stderr!r}")
    out = raw.stdout
    for want in ["PeriodType: cpu nanoseconds", "Period: 10101010",
                 "samples/count cpu/nanoseconds", "demo::compute(int)", "demo_slow", "memcpy",
                 "entry_SYSCALL_64", "[kernel.kallsyms]",
                 "0123456789abcdef0123456789abcdef01234567",
                 "fedcba9876543210fedcba9876543210fedcba98", "comm:[pprof-demo]",
                 "pid:[4242]", "tid:[4243]"]:
        check(want in out, f"go tool pprof -raw does not show {want!r}")
    mappings = out.split("Mappings\n", 1)[-1].splitlines()
    check(mappings and "/usr/local/bin/pprof-demo" in mappings[0],
          f"the main binary is not the first mapping: {mappings[:1]}")
    total = 0
    samples = out.split("Samples:\n", 1)[-1].split("Locations\n", 1)[0]
    for line in samples.splitlines()[1:]:
        fields = line.split(":")[0].split()
        if len(fields) == 2 and fields[0].isdigit():
            total += int(fields[0])
    check(total == 100, f"go tool pprof -raw counts {total} samples, expected 100")

    top = run([go, "tool", "pprof", "-top", "-sample_index=samples", path], env=env)
    check(top.returncode == 0, f"go tool pprof -top failed: {top.stderr}")
    check(top.stderr.strip() == "", f"go tool pprof -top warned: {top.stderr!r}")
    check("100 total" in top.stdout, f"go tool pprof -top does not count 100: {top.stdout}")
    first = table_rows(top.stdout, "flat")[:1]
    check(first and first[0].split()[-1] == "demo::compute(int)",
          f"the top function is not demo::compute(int): {first}")
    top = run([go, "tool", "pprof", "-top", path], env=env)
    check("Type: cpu" in top.stdout and "1010.10ms total" in top.stdout,
          f"go tool pprof does not show 1010.10ms of cpu: {top.stdout}")

    # unwprof reads its own file back
    r = run([unwprof, "report", "-i", path, "--json"])
    check(r.returncode == 0, f"report on the written pprof failed: {r.stderr}")
    doc = json.loads(r.stdout)
    check(doc["schema"] == 1 and doc["view"] == "top", "report --json: schema or view")
    check(doc["input"]["samples"] == 100, "report --json: 100 samples")
    check(doc["functions"][0]["name"] == "demo::compute(int)",
          f"report top function: {doc['functions'][0]}")


def test_go_profile(unwprof, _fixtures, _writer, cpuprof, tmp):
    """A CPU profile written by Go's runtime/pprof."""
    go = find_go()
    env = go_env(tmp)
    exe = os.path.join(tmp, "cpuprof")
    r = run([go, "build", "-o", exe, cpuprof], env=env, timeout=300)
    if r.returncode != 0:
        check(False, f"go build failed: {r.stderr}")
        return
    path = os.path.join(tmp, "go.pb.gz")
    r = run([exe, path], env=env)
    check(r.returncode == 0, f"the Go program failed: {r.stderr}")
    r = run([unwprof, "report", "-i", path, "--top", "0"])
    check(r.returncode == 0, f"report on the Go profile failed: {r.stderr}")
    check("main.spinOuter" in r.stdout, f"report does not show main.spinOuter: {r.stdout}")
    check("period 10.000 ms" in r.stdout, f"report does not show the period: {r.stdout}")
    r = run([unwprof, "report", "-i", path, "--json", "--sort", "total"])
    doc = json.loads(r.stdout)
    names = [f["name"] for f in doc["functions"]]
    check("main.main" in names and "main.spinOuter" in names, f"top names: {names}")
    total = doc["input"]["samples"]
    spin = [f for f in doc["functions"] if f["name"] == "main.spinOuter"]
    check(spin and spin[0]["total"] >= 0.9 * total, "main.spinOuter is not on most stacks")
    r = run([unwprof, "report", "-i", path, "--tree", "--json"])
    check(r.returncode == 0 and json.loads(r.stdout)["view"] == "tree", "tree on the Go profile")
    r = run([unwprof, "report", "-i", path, "--folded"])
    check(r.returncode == 0 and "main.main;main.spinOuter" in r.stdout
          and all(l.startswith("cpuprof;") for l in r.stdout.splitlines()),
          f"folded from the Go profile: {r.stdout}")
    # not compressed: the same profile
    raw = os.path.join(tmp, "go.pb")
    with gzip.open(path, "rb") as src, open(raw, "wb") as dst:
        dst.write(src.read())
    r2 = run([unwprof, "report", "-i", raw, "--folded"])
    check(r2.returncode == 0 and r2.stdout == r.stdout, "the uncompressed Go profile differs")


def test_round_trip(unwprof, fixtures, _writer, _cpuprof, tmp):
    """folded -> report --folded, folded -> pprof -> report --folded: the same bytes."""
    src = os.path.join(fixtures, "stacks.folded")
    with open(src) as f:
        text = f.read()
    r = run([unwprof, "report", "-i", src, "--folded"])
    check(r.returncode == 0 and r.stdout == text, f"folded -> folded differs:\n{r.stdout}")
    pb = os.path.join(tmp, "stacks.pb.gz")
    r = run([unwprof, "report", "-i", src, "-o", pb])
    check(r.returncode == 0 and r.stdout == "", f"folded -> pprof failed: {r.stderr}")
    r = run([unwprof, "report", "-i", pb, "--folded", "--with-tid"])
    check(r.returncode == 0 and r.stdout == text, f"pprof -> folded differs:\n{r.stdout}")
    with open(pb, "rb") as f:
        first = f.read()
    r = run([unwprof, "report", "-i", src, "-o", pb])
    with open(pb, "rb") as f:
        check(f.read() == first, "writing the same profile twice gives other bytes")
    # gzip-compressed folded stacks, and stdin
    gz = os.path.join(tmp, "stacks.folded.gz")
    with open(gz, "wb") as f:
        f.write(gzip.compress(text.encode(), mtime=0))
    r = run([unwprof, "report", "-i", gz, "--folded"])
    check(r.returncode == 0 and r.stdout == text, "gzip folded -> folded differs")
    with open(src) as f:
        r = run([unwprof, "report", "-i", "-", "--folded"], stdin=f)
    check(r.returncode == 0 and r.stdout == text, "folded on stdin differs")
    # filters
    r = run([unwprof, "report", "-i", pb, "--folded", "--pid", "200"])
    check(r.stdout == "helper;_start;main;[unknown] 3\n", f"--pid 200: {r.stdout!r}")
    r = run([unwprof, "report", "-i", src, "--comm", "helper", "--json"])
    check(json.loads(r.stdout)["input"]["samples"] == 3, "--comm helper: 3 samples")
    r = run([unwprof, "report", "-i", src, "--folded", "--no-kernel", "--pid", "100"])
    check("_[k]" not in r.stdout and r.stdout.count("\n") == 6, f"--no-kernel: {r.stdout}")
    # the views
    r = run([unwprof, "report", "-i", pb, "--top", "3"])
    rows = table_rows(r.stdout, "flat")
    check(r.returncode == 0 and rows and rows[0].split()[-1] == "kernel_a",
          f"top: kernel_a first: {r.stdout}")
    check(len(rows) == 3, "--top 3 shows 3 rows")
    r = run([unwprof, "report", "-i", pb, "--tree", "--min-percent", "10"])
    check(r.returncode == 0 and " --58.25%--run\n" in r.stdout and "---compute\n" in r.stdout
          and "strtol" not in r.stdout,
          f"tree:\n{r.stdout}")
    r = run([unwprof, "report", "-i", pb, "--tree", "--json", "--min-percent", "0"])
    doc = json.loads(r.stdout)
    check(doc["schema"] == 1 and doc["view"] == "tree", "tree json header")
    roots = [n for n in doc["nodes"] if n["depth"] == 1]
    check(sum(n["total"] for n in roots) == 103, "tree roots add up to every sample")
    check(all(n["parent"] == 0 for n in roots), "tree roots have parent 0")
    # stacks deeper than any nesting limit
    deep = os.path.join(tmp, "deep.folded")
    with open(deep, "w") as f:
        f.write("app;" + ";".join(f"f{i}" for i in range(3000)) + " 5\napp;main 1\n")
    for view in (["--tree"], ["--tree", "--json"], ["--folded"], []):
        r = run([unwprof, "report", "-i", deep] + view)
        check(r.returncode == 0, f"deep stack {view}: exit {r.returncode}: {r.stderr[-300:]}")
    r = run([unwprof, "report", "-i", deep, "--tree", "--json"])
    check(max(n["depth"] for n in json.loads(r.stdout)["nodes"]) == 3000, "deep tree json")
    r = run([unwprof, "report", "-i", src, "--folded", "--json"])
    doc = json.loads(r.stdout)
    check(doc["view"] == "folded" and len(doc["stacks"]) == 7, "folded json")


def test_diff(unwprof, fixtures, _writer, _cpuprof, tmp):
    """slow_path does three times the work: it tops the list and fails the check."""
    base = os.path.join(fixtures, "base.folded")
    slower = os.path.join(fixtures, "slower.folded")
    pb = os.path.join(tmp, "slower.pb.gz")
    run([unwprof, "report", "-i", slower, "-o", pb])
    for new in (slower, pb):
        r = run([unwprof, "report", "--diff", base, "-i", new])
        check(r.returncode == 0, f"diff failed: {r.stderr}")
        check("Total: +30 (+50.0%), significant increase" in r.stdout, f"diff totals:\n{r.stdout}")
        rows = table_rows(r.stdout, "base")
        check(rows and rows[0].split()[-1] == "slow_path", f"diff: slow_path first:\n{r.stdout}")
        check(rows and rows[0].split()[:4] == ["15", "45", "+30", "+50.0%"] and "3.00x" in rows[0]
              and " * slow_path" in rows[0], f"diff row: {rows[:1]}")
    r = run([unwprof, "report", "--diff", base, "-i", slower, "--fail-above", "10"])
    check(r.returncode == 3, f"--fail-above 10 exits {r.returncode}, expected 3")
    first = [l for l in r.stderr.splitlines() if "warning" not in l][:1]
    check(first and first[0].startswith("unwprof: slow_path: +30 samples, +50.00%"),
          f"--fail-above names the function whose own time grew first: {r.stderr}")
    r = run([unwprof, "report", "--diff", base, "-i", slower, "--fail-above", "60"])
    check(r.returncode == 0, f"--fail-above 60 exits {r.returncode}, expected 0")
    r = run([unwprof, "report", "--diff", base, "-i", slower, "--fail-above", "10", "--json"])
    check(r.returncode == 3, "--json --fail-above exits 3")
    doc = json.loads(r.stdout)
    check(doc["schema"] == 1 and doc["view"] == "diff" and doc["failed"] is True, "diff json")
    row = doc["functions"][0]
    check(row["name"] == "slow_path", "diff json: slow_path first")
    check(abs(row["delta_total_points"] - 25) < 1e-9, "diff json: +25 points")
    check(row["delta_total_time"] == 30 and row["ratio"] == 3 and row["change"] == "increase",
          f"diff json: +30 samples, 3x, an increase: {row}")
    check(doc["time_unit"] == "samples" and doc["confidence"] == 0.99, "diff json: unit")
    r = run([unwprof, "report", "--diff", base, "-i", base, "--fail-above", "0"])
    check(r.returncode == 0, "a profile compared with itself does not fail")
    # a differential flame graph: red where the time grew, blue where it shrank, white: equal
    svg = os.path.join(tmp, "diff.svg")
    r = run([unwprof, "report", "--diff", base, "-i", slower, "-o", svg, "--fail-above", "10"])
    check(r.returncode == 3 and r.stdout == "", f"--diff -o diff.svg: {r.returncode} {r.stdout}")
    with open(svg) as f:
        text = f.read()
    fills = dict(re.findall(r'<title>(\S+) \([^<]*</title><rect [^>]*fill="([^"]+)"', text))
    check(fills.get("slow_path") == "rgb(255,45,45)", f"slow_path is not deep red: {fills}")
    check(fills.get("memcpy", "").startswith("rgb(255,") and fills.get("memcpy") != fills.get(
        "slow_path"), f"memcpy is not a lighter red: {fills}")
    check(fills.get("fast_path") == "rgb(250,250,250)", f"fast_path is not white: {fills}")
    r = run([unwprof, "report", "--diff", slower, "-i", base, "-o", svg])
    with open(svg) as f:
        fills = dict(re.findall(r'<title>(\S+) \([^<]*</title><rect [^>]*fill="([^"]+)"', f.read()))
    check(fills.get("slow_path") == "rgb(45,45,255)", f"a speed-up is not blue: {fills}")
    r = run([unwprof, "report", "--diff", base, "-i", slower, "-o", os.path.join(tmp, "d.pb.gz")])
    check(r.returncode == 64, "--diff -o FILE.pb.gz is a usage error")


def test_diff_gate(unwprof, fixtures, _writer, _cpuprof, tmp):
    """A speed-up of one function does not fail the gate; --min-percent and the warning."""
    base = os.path.join(fixtures, "speedup_base.folded")
    new = os.path.join(fixtures, "speedup_new.folded")
    # find_match 600 -> 252 samples: fnv1a_mix's share grows 30.7% -> 45.3%, its time does not
    r = run([unwprof, "report", "--diff", base, "-i", new, "--fail-above", "5"])
    check(r.returncode == 0, f"a speed-up fails the gate: exit {r.returncode}: {r.stderr}")
    check("too small for --fail-above 5.00" in r.stderr, f"no warning at 1045 samples: {r.stderr}")
    check("Total: -349 (-33.4%), significant decrease" in r.stdout, f"totals:\n{r.stdout}")
    rows = {l.split()[-1]: l.split() for l in table_rows(r.stdout, "base")}
    check(rows.get("fnv1a_mix", [])[:3] == ["321", "315", "-6"], f"fnv1a_mix: {rows.get('fnv1a_mix')}")
    check(rows.get("find_match", [])[-2] == "*", f"find_match's decrease is significant")
    r = run([unwprof, "report", "--diff", base, "-i", new, "--fail-above", "30"])
    check(r.returncode == 0 and "too small" not in r.stderr,
          f"--fail-above 30 on 1045 samples: no warning: {r.stderr}")
    # the other way round, the slow-down fails, and so does the total with --fail-total
    r = run([unwprof, "report", "--diff", new, "-i", base, "--fail-above", "30"])
    check(r.returncode == 3 and "find_match: +348 samples" in r.stderr, f"slow-down: {r.stderr}")
    r = run([unwprof, "report", "--diff", new, "-i", base, "--fail-above", "30", "--fail-total",
             "--json"])
    check(r.returncode == 3 and "total: +349 samples, +50.14%" in r.stderr,
          f"--fail-total: {r.stderr}")
    check(json.loads(r.stdout)["total_change"] == "increase", "json total_change")
    # --min-percent: the functions below it in both profiles are left out
    for pct, want in (("0", 9), ("20", 7), ("50", 5)):
        r = run([unwprof, "report", "--diff", base, "-i", new, "--min-percent", pct, "--json"])
        got = len(json.loads(r.stdout)["functions"])
        check(got == want, f"--min-percent {pct}: {got} functions, expected {want}")
    r = run([unwprof, "report", "--diff", base, "-i", new, "--fail-total"])
    check(r.returncode == 64, "--fail-total without --fail-above is a usage error")
    check_gate_fixed(unwprof, tmp)


def check_gate_fixed(unwprof, tmp):
    """The gate at the man page's 10% on a fixed pair of runs of one program: counts that
    differ as much as sampling makes them (about one standard deviation each) do not fail
    it, and one function grown by 12% of the base's time does, whatever the machine."""
    base = {"spin": 1200, "parse": 900, "hash": 700, "copy": 600, "emit": 600}
    same = {"spin": 1235, "parse": 873, "hash": 712, "copy": 590, "emit": 618}
    grown = dict(same, spin=1200 + 480)
    paths = {}
    for name, counts in (("base", base), ("same", same), ("grown", grown)):
        paths[name] = os.path.join(tmp, f"gate-{name}.folded")
        with open(paths[name], "w") as f:
            for fn, n in counts.items():
                f.write(f"app;_start;main;{fn} {n}\n")
    r = run([unwprof, "report", "--diff", paths["base"], "-i", paths["same"], "--fail-above",
             "10", "--fail-total"])
    check(r.returncode == 0, f"sampling noise fails --fail-above 10: {r.stderr}")
    r = run([unwprof, "report", "--diff", paths["base"], "-i", paths["grown"], "--fail-above",
             "10"])
    check(r.returncode == 3 and "spin: +480 samples" in r.stderr,
          f"a function 12% slower passes --fail-above 10: exit {r.returncode}: {r.stderr}")


def go_top(go, env, args):
    """go tool pprof -top: {function: (flat, cum)} as numbers (ns with -unit=ns)."""
    r = run([go, "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0",
             "-edgefraction=0", "-unit=ns"] + args, env=env)
    check(r.returncode == 0, f"go tool pprof {args}: {r.stderr}")
    out = {}
    for line in table_rows(r.stdout, "flat"):
        f = line.split()
        if len(f) < 6:
            continue
        num = lambda v: float(v[:-2] if v.endswith("ns") else v)
        name = " ".join(f[5:])
        # -top marks a function the compiler inlined: the mark is pprof's, not the name
        if name.endswith(" (inline)"):
            name = name[:-len(" (inline)")]
        out[name] = (num(f[0]), num(f[3]))
    return out


def check_against_pprof(unwprof, go, env, base, new, what):
    """Every function's change of flat and cum time as go tool pprof -diff_base computes it."""
    ref = go_top(go, env, ["-diff_base", base, new])
    r = run([unwprof, "report", "--diff", base, "-i", new, "--json", "--top", "0",
             "--min-percent", "0"])
    check(r.returncode == 0, f"{what}: diff: {r.stderr}")
    ours = {}
    for f in json.loads(r.stdout)["functions"]:
        # A location of no function (a sample in a PLT stub, say) is "[libc.so.6+0x262c0]"
        # to unwprof and, when its file has no function there either, its mapping,
        # "[libc.so.6]", to pprof: such ones are compared by mapping.
        name = f["name"]
        m = re.fullmatch(r"\[(.*)\+0x[0-9a-f]+\]", name)
        if m and name not in ref and f"[{m.group(1)}]" in ref:
            name = f"[{m.group(1)}]"
        # A part GCC split out of a function (libc's malloc.part.0) is the
        # function to unwprof and "malloc (partial-inline)" to pprof.
        if name not in ref and f"{name} (partial-inline)" in ref:
            name = f"{name} (partial-inline)"
        flat, cum = ours.get(name, (0, 0))
        ours[name] = (flat + f["delta_self_time"], cum + f["delta_total_time"])
    check(len(ref) > 3, f"{what}: go tool pprof shows {len(ref)} functions")
    for name, (flat, cum) in ref.items():
        got = ours.get(name)
        check(got is not None and abs(got[0] - flat) < 1 and abs(got[1] - cum) < 1,
              f"{what}: {name}: pprof says flat {flat} cum {cum}, unwprof {got}")
    for name, (flat, cum) in ours.items():
        check(name in ref or (flat == 0 and cum == 0),
              f"{what}: {name} changed by {cum} but pprof does not show it")


def test_diff_pprof(unwprof, fixtures, _writer, _cpuprof, tmp):
    """The per-function deltas are go tool pprof -diff_base's."""
    go = find_go()
    env = go_env(tmp)
    for a, b in (("base", "slower"), ("speedup_base", "speedup_new"), ("speedup_new", "stacks")):
        pa, pb = os.path.join(tmp, a + ".pb.gz"), os.path.join(tmp, b + ".pb.gz")
        for name, path in ((a, pa), (b, pb)):
            r = run([unwprof, "report", "-i", os.path.join(fixtures, name + ".folded"), "-o", path])
            check(r.returncode == 0, f"converting {name}: {r.stderr}")
        check_against_pprof(unwprof, go, env, pa, pb, f"{a} -> {b}")


def test_formats(unwprof, fixtures, _writer, _cpuprof, tmp):
    """-o names the format; a file that is not a profile is named for what it is."""
    src = os.path.join(fixtures, "stacks.folded")
    for name, magic in (("p.pb.gz", b"\x1f\x8b"), ("p.pb", b"\x1f\x8b"), ("p.prof", b"\x1f\x8b"),
                        ("p.pprof", b"\x1f\x8b"), ("p.gz", b"\x1f\x8b"), ("p.svg", b"<?xml"),
                        ("p.folded", b"demo"), ("p.txt", b"demo")):
        out = os.path.join(tmp, name)
        r = run([unwprof, "report", "-i", src, "-o", out])
        check(r.returncode == 0, f"report -o {name}: {r.stderr}")
        with open(out, "rb") as f:
            head = f.read(8)
        check(head.startswith(magic), f"report -o {name} wrote {head!r}")
    r = run([unwprof, "report", "-i", src, "-o", os.path.join(tmp, "p.weird")])
    check(r.returncode == 64 and "--format" in r.stderr, f"-o p.weird: {r.returncode} {r.stderr}")
    check(not os.path.exists(os.path.join(tmp, "p.weird")), "-o p.weird left a file")
    r = run([unwprof, "report", "-i", src, "-o", os.path.join(tmp, "p.weird"), "--format", "svg"])
    check(r.returncode == 0, f"--format svg: {r.stderr}")
    r = run([unwprof, "report", "-i", src, "--format", "svg"])
    check(r.returncode == 64, "--format without -o is a usage error")
    r = run([unwprof, "report", "-i", os.path.join(tmp, "p.svg")])
    check(r.returncode == 1 and "SVG" in r.stderr, f"report -i p.svg: {r.stderr}")
    r = run([unwprof, "report", "-i", os.path.join(tmp, "p.txt"), "--top", "1"])
    check(r.returncode == 0, "report reads back -o p.txt")
    perf = os.path.join(tmp, "perf.data")
    with open(perf, "wb") as f:
        f.write(b"PERFILE2" + bytes(100))
    r = run([unwprof, "report", "-i", perf])
    check(r.returncode == 1 and "perf.data" in r.stderr, f"report -i perf.data: {r.stderr}")


def test_errors(unwprof, fixtures, _writer, _cpuprof, tmp):
    """Bad input: a clear message naming the file, exit 1; bad usage: exit 64."""
    good = os.path.join(tmp, "good.pb.gz")
    run([unwprof, "report", "-i", os.path.join(fixtures, "stacks.folded"), "-o", good])
    with open(good, "rb") as f:
        data = f.read()
    raw = gzip.decompress(data)
    cases = {
        "missing.pb.gz": None,
        "empty.pb.gz": b"",
        "truncated.pb.gz": data[: len(data) // 2],
        "corrupt.pb.gz": data[:10] + bytes(b ^ 0x5a for b in data[10:]),
        "truncated.pb": raw[: len(raw) - 7],
        "empty-gzip.pb.gz": gzip.compress(b"", mtime=0),
        "notes.txt": b"this is not a profile\n",
        "binary.bin": bytes(range(256)) * 4,
        "elf": open("/proc/self/exe", "rb").read(4096),
        "no-samples.pb.gz": None,
    }
    for name, content in cases.items():
        path = os.path.join(tmp, name)
        if content is not None:
            with open(path, "wb") as f:
                f.write(content)
    # a valid profile without samples: filter everything out, then write
    r = run([unwprof, "report", "-i", good, "--pid", "999", "-o",
             os.path.join(tmp, "no-samples.pb.gz")])
    check(r.returncode == 1 and "no sample" in r.stderr, f"--pid 999: {r.stderr}")
    check(not os.path.exists(os.path.join(tmp, "no-samples.pb.gz")),
          "a failed run left a file behind")
    del cases["no-samples.pb.gz"]
    for name in cases:
        path = os.path.join(tmp, name)
        for extra in ([], ["--tree"], ["--folded"], ["--diff", good]):
            r = run([unwprof, "report", "-i", path] + extra)
            check(r.returncode == 1, f"{name} {extra}: exit {r.returncode}, expected 1")
            check(r.stderr.startswith("unwprof: ") and path in r.stderr,
                  f"{name}: the message does not name the file: {r.stderr!r}")
            check(r.stdout == "", f"{name}: printed something on stdout")
        r = run([unwprof, "report", "--diff", path, "-i", good])
        check(r.returncode == 1 and path in r.stderr, f"{name} as BASE: {r.stderr!r}")
    for args in ([], ["-i", good, "--tree", "--folded"], ["-i", good, "--fail-above", "5"],
                 ["-i", good, "--sort", "name"], ["-i", good, "--top", "-1"],
                 ["-i", good, "extra"], ["-i", good, "--with-tid"]):
        r = run([unwprof, "report"] + args)
        check(r.returncode == 64, f"report {args}: exit {r.returncode}, expected 64")
    if os.path.exists("/dev/full"):
        r = run([unwprof, "report", "-i", good, "-o", "/dev/full"])
        check(r.returncode == 1 and "/dev/full" in r.stderr, f"-o /dev/full: {r.stderr}")
        with open("/dev/full", "w") as full:
            r = subprocess.run([unwprof, "report", "-i", good], stdout=full,
                               capture_output=False, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 1, f"report > /dev/full exits {r.returncode}")
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro, 0o555)
    if os.geteuid() != 0:
        r = run([unwprof, "report", "-i", good, "-o", os.path.join(ro, "x.pb.gz")])
        check(r.returncode == 1, "-o in a read-only directory")
        check(os.listdir(ro) == [], "a failed write left a file behind")


def bpf_missing():
    """Why record cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root to load BPF programs and open perf events"
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        return "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
    return None


def test_record(unwprof, _fixtures, _writer, _cpuprof, tmp):
    """record -o FILE.pb.gz on the chain workload, read by report and go tool pprof."""
    why = bpf_missing()
    if why:
        if os.environ.get("UNWPROF_REQUIRE_BPF") == "1":
            check(False, f"{why} (UNWPROF_REQUIRE_BPF=1, so this is not skipped)")
            return
        print(why, file=sys.stderr)
        sys.exit(SKIP)
    chain = os.path.join(os.environ["WORKLOADS"], "chain-pie")
    pb = os.path.join(tmp, "rec.pb.gz")
    r = run([unwprof, "record", "-F", "999", "-o", pb, "--quiet", "--", chain, "1"])
    check(r.returncode == 0, f"record failed: {r.stderr}")
    if r.returncode != 0:
        return
    with open(pb, "rb") as f:
        check(f.read(2) == b"\x1f\x8b", "record -o FILE.pb.gz did not write gzip")
    r = run([unwprof, "report", "-i", pb, "--folded", "--comm", "chain-pie"])
    check(r.returncode == 0, f"report --folded on record's pprof: {r.stderr}")
    lines = r.stdout.splitlines()
    leaf = sum(int(l.rsplit(" ", 1)[1]) for l in lines if l.rsplit(" ", 1)[0].endswith(";leaf"))
    full = sum(int(l.rsplit(" ", 1)[1]) for l in lines
               if l.rsplit(" ", 1)[0].endswith(";main;f1;f2;f3;f4;f5;f6;f7;f8;leaf")
               and l.startswith("chain-pie;_start;"))
    check(leaf > 100 and full >= 0.99 * leaf,
          f"{full} of {leaf} samples in leaf have the whole chain:\n{r.stdout}")
    r = run([unwprof, "report", "-i", pb, "--json", "--sort", "self"])
    doc = json.loads(r.stdout)
    check(doc["functions"][0]["name"] == "leaf", f"record: the top function is not leaf")
    check(abs(doc["input"]["period_ns"] - 1001001) <= 1, "record: the period of 999 Hz")
    check(doc["input"]["duration_ns"] > 0 and doc["input"]["start_ns"] > 0, "record: times")
    go = shutil.which("go")
    if not go:
        print("go is not installed (Debian package golang-go)", file=sys.stderr)
        sys.exit(SKIP)
    env = go_env(tmp)
    raw = run([go, "tool", "pprof", "-raw", pb], env=env)
    check(raw.returncode == 0 and raw.stderr.strip() == "",
          f"go tool pprof -raw on record's pprof: {raw.stderr!r}")
    mappings = raw.stdout.split("Mappings\n", 1)[-1].splitlines()
    first = mappings[0].split() if mappings else []
    check(len(first) > 3 and os.path.realpath(first[2]) == os.path.realpath(chain)
          and len(first[3]) == 40,
          f"the first mapping is not chain-pie with its build ID: {mappings[:1]}")
    top = run([go, "tool", "pprof", "-top", pb], env=env)
    check(top.returncode == 0 and top.stderr.strip() == "",
          f"go tool pprof -top on record's pprof: {top.stderr!r}")
    rows = table_rows(top.stdout, "flat")
    check(rows and rows[0].split()[-1] == "leaf", f"go tool pprof -top: leaf first: {rows[:1]}")
    test_record_noise(unwprof, tmp, go, env)


def demo_cpu_seconds(stderr):
    """The CPU time the demo reports of itself ("demo: N rounds in W s (C s of CPU)")."""
    m = re.search(r"\(([0-9.]+) s of CPU\)", stderr)
    check(m is not None, f"the demo did not report its CPU time: {stderr!r}")
    return float(m.group(1)) if m else 0.0


# A pair of runs whose own CPU times differ by less than this is a steady one.
STEADY_PERCENT = 4

# Rounds of the demo per run: about 4 s of CPU, 4,000 samples at 999 Hz, enough to
# tell 10% from noise even when a busy machine lets the demo run a quarter slower.
DEMO_ROUNDS = "60"


def test_record_noise(unwprof, tmp, go, env):
    """Runs of the unchanged demo: their diff's total is the change of the CPU time the
    demo reports of itself, and, where the machine was steady enough that it changed
    less than STEADY_PERCENT, they do not fail the gate at the threshold the man page
    gives; their diffs in time are go tool pprof -diff_base's."""
    demo = os.path.join(os.environ["WORKLOADS"], "demo")
    runs, cpu = [], {}
    for i in range(3):
        pb = os.path.join(tmp, f"demo{i}.pb.gz")
        r = run([unwprof, "record", "-F", "999", "-o", pb, "--quiet", "--", demo, DEMO_ROUNDS])
        check(r.returncode == 0, f"record demo: {r.stderr}")
        runs.append(pb)
        cpu[pb] = demo_cpu_seconds(r.stderr)
    for base, new in ((runs[0], runs[1]), (runs[1], runs[2]), (runs[2], runs[0])):
        r = run([unwprof, "report", "--diff", base, "-i", new, "--fail-above", "10",
                 "--fail-total", "--json"])
        doc = json.loads(r.stdout)
        total = 100 * (doc["time"] - doc["base_time"]) / doc["base_time"]
        own = 100 * (cpu[new] - cpu[base]) / cpu[base] if cpu[base] else 0.0
        print(f"demo {doc['base']['samples']} -> {doc['input']['samples']} samples, total "
              f"{total:+.1f}%, the demo's own CPU time {own:+.1f}%, detectable "
              f"{doc['detectable_percent']:.1f}%", file=sys.stderr)
        check(abs(total - own) < doc["detectable_percent"],
              f"the diff's total {total:+.1f}% is not the demo's own {own:+.1f}%")
        if abs(own) < STEADY_PERCENT:
            check(r.returncode == 0, f"the unchanged demo fails --fail-above 10: {r.stderr}")
        else:
            print(f"demo: the machine was not steady ({own:+.1f}%): gate not checked",
                  file=sys.stderr)
        check(doc["time_unit"] == "nanoseconds", "record's profiles give times")
        check(doc["detectable_percent"] < 10,
              f"{doc['base']['samples']} samples cannot tell 10% from noise")
    check_against_pprof(unwprof, go, env, runs[0], runs[1], "demo runs")


TESTS = {
    "go-tool": test_go_tool,
    "go-profile": test_go_profile,
    "round-trip": test_round_trip,
    "diff": test_diff,
    "diff-gate": test_diff_gate,
    "diff-pprof": test_diff_pprof,
    "formats": test_formats,
    "errors": test_errors,
    "record": test_record,
}


def main():
    name, unwprof, fixtures = sys.argv[1:4]
    writer = sys.argv[4] if len(sys.argv) > 4 else None
    cpuprof = sys.argv[5] if len(sys.argv) > 5 else None
    with tempfile.TemporaryDirectory(prefix="unwprof-report-") as tmp:
        try:
            TESTS[name](unwprof, fixtures, writer, cpuprof, tmp)
        finally:
            for root, dirs, _ in os.walk(tmp):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

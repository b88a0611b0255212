#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark of the unwind tables in the BPF maps, against a baseline build.

Usage (root): tests/bench/tables.py [BUILD_DIR [BASE_BUILD_DIR]]   (default: build)
Environment:  REPEAT    runs of each configuration, in turn (default 5)
              BASE_REV  the revision built as the baseline when no BASE_BUILD_DIR
                        is given (default 8a53578, the last with 16-byte rows),
                        in a temporary worktree of this repository
              BASE_PICKS commits applied to it first (default 7601652 38e9e8d:
                        the sampler's timing of each sample, so that both
                        builds pay for it and have its histogram)
              ELF_FILES how many of the machine's largest ELF files (default 100)

Both builds are measured in the same run, alternately, on the same workloads
(BUILD's tests/workloads):

  bytes per row     `unwprof shards --json` of libc, libstdc++, libLLVM-14 and
                    of the ELF_FILES largest ELF files under /usr (each alone
                    and all together): totals.used_bytes / totals.rows, which
                    for the compact format includes the page map entries and
                    the dictionary of rules; the 16-byte format's per-table
                    chunk index (1.5 KiB a table) is not counted for it
  BPF ns per sample at 999 Hz: all run time of unwprof's perf_event programs
                    (kernel.bpf_stats_enabled=1, restored afterwards; the
                    run_time_ns of the programs' fdinfo) over the samples the
                    summary counts (--stats-json): chain-pie (13 frames),
                    recurse at depth 1 and 101 (per extra frame is the
                    difference of the two over 100), where every lookup
                    finds its rows in the cache, and `clang++ -O2 -c` of a
                    generated C++ file (tests/programs/gen.py cxx), whose
                    deep stacks run all over libLLVM-14 and libclang-cpp
                    (about 1.5 million rows), where they do not. The median of
                    REPEAT runs, and the median and p99 of 20 ms windows of
                    all runs (run_time_ns and run_cnt read every 20 ms), which
                    shows how the cost of one sample spreads; then the median
                    and p99 of the target's samples themselves, from the
                    histogram BPF times them in, read from its map with
                    bpftool 1.8 s into each 2-second case (both builds alike:
                    the base has the timing from BASE_PICKS, not the code
                    that reads it), from --stats-json for clang++ ("-" for a
                    build without it), the median of the runs'. The
                    histogram's medians are the figures to compare: the mean
                    takes in every run of the programs, and a CPU woken from
                    idle makes a run of a few instructions cost a microsecond
                    on a VM, however little the sampler does there
  start             `record -v -p` of a process that maps only libc: the
                    "(N ms to start)" it prints, from unwprof's start to the
                    perf events attached, and the instructions the verifier
                    processed for each program (verified_insns of its fdinfo)
  map memory        bpf_map_bytes of that run (one process), of `record -a
                    -d 2` while two python3 processes burn CPU (the tables of
                    every process sampled are loaded), and unwprof's peak RSS

Figures are medians; the spread (max/min over the runs) follows each, as this
machine is shared and noisy.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
BASE = sys.argv[2] if len(sys.argv) > 2 else None
REPEAT = int(os.environ.get("REPEAT", "5"))
BASE_REV = os.environ.get("BASE_REV", "8a53578")
BASE_PICKS = os.environ.get("BASE_PICKS", "7601652 38e9e8d").split()
HIST_AT = 1.8  # s into a 2-second case: the histogram is read before the run ends
ELF_FILES = int(os.environ.get("ELF_FILES", "100"))
LIBS = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"]
WINDOW = 0.02


def unwprof(build):
    return os.path.join(build, "cmd", "unwprof")


def build_base(tmp):
    """BASE_REV built in a worktree under tmp; its build directory."""
    src = os.path.join(tmp, "base")
    subprocess.run(["git", "-C", SRC, "worktree", "add", "--detach", src, BASE_REV],
                   check=True, capture_output=True)
    if BASE_PICKS:
        subprocess.run(["git", "-C", src, "cherry-pick", "--no-commit"] + BASE_PICKS,
                       check=True, capture_output=True)
    subprocess.run(["meson", "setup", os.path.join(src, "build"), src], check=True,
                   capture_output=True)
    subprocess.run(["ninja", "-C", os.path.join(src, "build"), "cmd/unwprof"], check=True,
                   capture_output=True)
    return os.path.join(src, "build")


def largest_elf_files(n):
    """The n largest regular ELF files (executables and shared objects) under /usr."""
    found = []
    for root, dirs, files in os.walk("/usr"):
        for name in files:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
                if not os.path.isfile(path) or os.path.islink(path) or st.st_size < 4096:
                    continue
                with open(path, "rb") as f:
                    head = f.read(18)
            except OSError:
                continue
            if head[:4] == b"\x7fELF" and head[16] in (2, 3):  # ET_EXEC, ET_DYN
                found.append((st.st_size, path))
    found.sort(reverse=True)
    return [p for _, p in found[:n]]


def shards_bytes(build, paths):
    """(bytes per row of each file alone, of all together) from shards --json."""
    each = []
    for p in paths:
        doc = json.loads(subprocess.run([unwprof(build), "shards", "--json", p],
                                        capture_output=True, text=True).stdout or "{}")
        t = doc.get("totals", {})
        if t.get("rows"):
            each.append(t["used_bytes"] / t["rows"])
    doc = json.loads(subprocess.run([unwprof(build), "shards", "--json"] + paths,
                                    capture_output=True, text=True).stdout)
    t = doc["totals"]
    return each, t["used_bytes"] / t["rows"], t["rows"]


def prog_fields(pid):
    """{fd: fields} of pid's perf_event programs."""
    out = {}
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            lines = open(f"/proc/{pid}/fdinfo/{fd}").read().splitlines()
        except OSError:
            continue
        fields = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in lines)}
        if "prog_type" in fields and "link_id" not in fields:
            out[fd] = fields
    return out


def watch(pid, stop, windows, last):
    """Appends (run_time_ns, run_cnt) deltas of pid's perf_event programs per WINDOW."""
    prev = None
    while not stop.is_set():
        try:
            progs = [f for f in prog_fields(pid).values() if f.get("prog_type") == "7"]
        except OSError:
            progs = []
        ns = sum(int(f.get("run_time_ns", 0)) for f in progs)
        cnt = sum(int(f.get("run_cnt", 0)) for f in progs)
        if progs:
            if prev and cnt > prev[1]:
                windows.append((ns - prev[0], cnt - prev[1]))
            prev = (ns, cnt)
            last[0] = ns
        time.sleep(WINDOW)


def bucket_lo(b):
    """The lowest ns of bucket b of the histogram (bpf/sample_time_hist.h: 8 a power of two, from 64 ns)."""
    return (8 + b % 8) << (b // 8 + 3)


def hist_pct(counts, q):
    """The q quantile of a histogram, interpolated in its bucket as unwprof does; None if empty."""
    want, acc = q * sum(counts), 0
    for b, c in enumerate(counts):
        if c and acc + c >= want:
            return bucket_lo(b) + (bucket_lo(b + 1) - bucket_lo(b)) * (want - acc) / c
        acc += c
    return None


def hist_read():
    """The counts of the running sampler's histogram (sample_ns of its per-CPU
    tally, struct unw_tally), summed over CPUs and the tally's entries."""
    out = subprocess.run(["bpftool", "-j", "map", "dump", "name", "tally"],
                         capture_output=True, text=True).stdout
    counts = [0] * 256
    for e in json.loads(out or "[]"):
        for v in e["formatted"]["values"]:
            for b, n in enumerate(v["value"]["sample_ns"]):
                counts[b] += int(n)
    return counts


def record_ns(build, cmd, tmp, hist_at=None):
    """BPF ns per summary sample of record -F 999 -- cmd, its windows, and the
    (p50, p99) of BPF's histogram of sample times: read at hist_at s, else
    from --stats-json (None where the build has none)."""
    stats = os.path.join(tmp, "stats.json")
    p = subprocess.Popen([unwprof(build), "record", "--quiet", "-F", "999", "-o", os.devnull,
                          "--stats-json", stats, "--"] + cmd, stderr=subprocess.PIPE, text=True)
    stop, windows, last = threading.Event(), [], [0]
    t = threading.Thread(target=watch, args=(p.pid, stop, windows, last))
    t.start()
    counts = None
    if hist_at:
        time.sleep(hist_at)
        counts = hist_read()
    _, err = p.communicate()
    stop.set()
    t.join()
    if p.returncode:
        raise SystemExit(f"tables.py: record failed:\n{err}")
    st = json.load(open(stats))
    samples = st["samples"]["count"] if isinstance(st["samples"], dict) else st["samples"]
    hist = (st.get("bpf_ns_sample_p50"), st.get("bpf_ns_sample_p99"))
    if counts is not None:
        hist = (hist_pct(counts, 0.5), hist_pct(counts, 0.99))
    return last[0] / samples if samples else None, windows, hist


def start_figures(build, tmp, sleeper):
    """(ms to start, {program: verified insns}, map bytes, peak RSS) of record -p sleeper."""
    stats = os.path.join(tmp, "stats.json")
    p = subprocess.Popen([unwprof(build), "record", "-v", "-p", str(sleeper), "-d", "0.5",
                          "-o", os.devnull, "--stats-json", stats],
                         stderr=subprocess.PIPE, text=True)
    insns = {}
    for _ in range(100):
        time.sleep(0.01)
        try:
            for f in prog_fields(p.pid).values():
                if "verified_insns" in f:
                    insns[f.get("prog_tag")] = int(f["verified_insns"])
        except OSError:
            pass
        if insns:
            break
    _, err = p.communicate()
    ms = None
    for line in err.splitlines():
        if "ms to start)" in line:
            ms = int(line.rsplit("(", 1)[1].split()[0])
    st = json.load(open(stats))
    return ms, sorted(insns.values(), reverse=True), st["bpf_map_bytes"], st["peak_rss_bytes"]


def system_wide(build, tmp, busy):
    """(map bytes, peak RSS, rows) of record -a -d 2 while busy runs (the tables of
    every process sampled are loaded)."""
    stats = os.path.join(tmp, "stats.json")
    load = [subprocess.Popen(busy) for _ in range(2)]
    try:
        subprocess.run([unwprof(build), "record", "--quiet", "-a", "-d", "2", "-o", os.devnull,
                        "--stats-json", stats], check=True, capture_output=True)
    finally:
        for p in load:
            p.kill()
            p.wait()
    st = json.load(open(stats))
    return st["bpf_map_bytes"], st["peak_rss_bytes"], st["rows_loaded"]


def med(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    return statistics.median(values), max(values) / min(values) if min(values) > 0 else 0


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def hist_figures(runs):
    """"P50 / P99 ns", the medians of the runs' (p50, p99); "-" without a histogram."""
    p50 = med([r[0] for r in runs])[0]
    p99 = med([r[1] for r in runs])[0]
    if p50 is None or p99 is None:
        return "-"
    return f"{p50:.0f} / {p99:.0f} ns"


def mib(b):
    return f"{b / 1048576:.1f} MiB"


def main():
    if os.geteuid() != 0:
        raise SystemExit("tables.py: needs root (BPF, perf events, sysctl)")
    workloads = os.path.join(BUILD, "tests", "workloads")
    with tempfile.TemporaryDirectory() as tmp:
        base = BASE or build_base(tmp)
        builds = {"compact": BUILD, "base": base}
        for b in builds.values():
            if not os.access(unwprof(b), os.X_OK):
                raise SystemExit(f"tables.py: {unwprof(b)} not found: build first")
        print(f"compact: {BUILD}; base: {base} ({BASE_REV if not BASE else 'given'}); "
              f"{REPEAT} runs each, {os.cpu_count()} CPUs")

        files = [p for p in LIBS if os.path.exists(p)]
        big = largest_elf_files(ELF_FILES)
        print("\nbytes per row (shards --json: rows with their index and dictionary)")
        for name, b in builds.items():
            each, libs_all, _ = shards_bytes(b, files)
            each_big, big_all, rows = shards_bytes(b, big)
            print(f"  {name:8} " + ", ".join(f"{os.path.basename(p)} {v:.2f}"
                                             for p, v in zip(files, each)) +
                  f"; {len(big)} largest ELF files: all {big_all:.2f} ({rows} rows), "
                  f"median {statistics.median(each_big):.2f}, max {max(each_big):.2f}")

        before = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
        try:
            cases = {"chain-pie, 13 frames": [os.path.join(workloads, "chain-pie"), "2"],
                     "recurse, depth 1": [os.path.join(workloads, "recurse"), "2", "1"],
                     "recurse, depth 101": [os.path.join(workloads, "recurse"), "2", "101"]}
            clang = shutil.which("clang++")
            if clang:
                src = os.path.join(tmp, "units.cpp")
                subprocess.run([sys.executable, os.path.join(SRC, "tests", "programs", "gen.py"),
                                "cxx", src, "3"], check=True)
                cases["clang++ -O2 -c"] = [clang, "-std=c++17", "-O2", "-c", src, "-o",
                                           os.path.join(tmp, "units.o")]
            else:
                print("note: clang++ is not installed: no case over libLLVM")
            ns = {(b, c): [] for b in builds for c in cases}
            win = {(b, c): [] for b in builds for c in cases}
            hist = {(b, c): [] for b in builds for c in cases}
            for i in range(REPEAT):
                order = list(builds) if i % 2 == 0 else list(reversed(builds))
                for c, cmd in cases.items():
                    for b in order:
                        n, w, h = record_ns(builds[b], cmd, tmp,
                                            None if c.startswith("clang") else HIST_AT)
                        ns[(b, c)].append(n)
                        win[(b, c)] += [d / k for d, k in w if k >= 5]
                        hist[(b, c)].append(h)
            print("\nBPF ns per sample at 999 Hz (median of runs, spread; the ns per program "
                  "run of 20 ms windows, every CPU's runs, p50/p99; the target's samples in "
                  "BPF's histogram, p50/p99)")
            for c in cases:
                for b in builds:
                    m, sp = med(ns[(b, c)])
                    print(f"  {c:20} {b:8} {m:7.0f} ns (spread {sp:.2f}x); windows "
                          f"{pct(win[(b, c)], 0.5):.0f} / {pct(win[(b, c)], 0.99):.0f} ns; "
                          f"histogram {hist_figures(hist[(b, c)])}")
                m_new, m_base = med(ns[("compact", c)])[0], med(ns[("base", c)])[0]
                h_new = med([h[0] for h in hist[("compact", c)]])[0]
                h_base = med([h[0] for h in hist[("base", c)]])[0]
                ratio = f"; histogram medians {h_new / h_base:.3f}" if h_new and h_base else ""
                print(f"  {c:20} compact / base: mean {m_new / m_base:.3f}{ratio}")
            for b in builds:
                deep = med(ns[(b, "recurse, depth 101")])[0]
                shallow = med(ns[(b, "recurse, depth 1")])[0]
                h_deep = med([h[0] for h in hist[(b, "recurse, depth 101")]])[0]
                h_shallow = med([h[0] for h in hist[(b, "recurse, depth 1")]])[0]
                by_hist = (f"; histogram medians {(h_deep - h_shallow) / 100:.1f} ns"
                           if h_deep and h_shallow else "")
                print(f"  per extra frame, {b:8}: mean {(deep - shallow) / 100:.1f} ns{by_hist}")
        finally:
            open("/proc/sys/kernel/bpf_stats_enabled", "w").write(before)

        print("\nstart, verifier, memory")
        sleeper = subprocess.Popen(["sleep", "600"])
        try:
            time.sleep(0.2)
            for b in builds:
                runs = [start_figures(builds[b], tmp, sleeper.pid) for _ in range(REPEAT)]
                ms, sp = med([r[0] for r in runs])
                insns = runs[-1][1]
                mem, rss = runs[-1][2], runs[-1][3]
                a_mem, a_rss, a_rows = system_wide(builds[b], tmp, [
                    "python3", "-c", "import time\nt = time.time() + 4\nwhile time.time() < t: pass"])
                print(f"  {b:8} -p (libc only): {ms:.0f} ms to start (spread {sp:.2f}x), "
                      f"verified insns {insns}, maps {mib(mem)}, peak RSS {mib(rss)}; "
                      f"-a: maps {mib(a_mem)}, peak RSS {mib(a_rss)}, {a_rows} rows")
        finally:
            sleeper.kill()
        if not BASE:
            subprocess.run(["git", "-C", SRC, "worktree", "remove", "--force",
                            os.path.join(tmp, "base")], capture_output=True)


if __name__ == "__main__":
    main()

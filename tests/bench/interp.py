#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark of interpreter frames: what reading Python, Ruby, Perl and PHP frames costs.

Usage (root): tests/bench/interp.py [BUILD_DIR]          (default: build)
Environment:  REPEAT  runs of each configuration, the median is kept (default 3)
              WORK    iterations of the workload's loop (default 1600)
              ONLY    run only the interpreters whose name holds it ("3.14")

For each interpreter found (Debian's python3.11, pyenv's newest 3.12 or 3.13,
pyenv's 3.8, Debian's ruby3.1, perl 5.36 and php8.2, and sid's python3.14,
python3.15, ruby3.3, perl 5.42 and php8.4 in the root setup.sh builds,
$UNWPROF_SID_ROOT, run there with chroot), a workload of fixed work recurses to
a depth D and burns CPU there in pure Python, Ruby, Perl or PHP, in a loop of WORK iterations; it prints its own CPU
time. Run without profiling, and under `unwprof record` at 99 and 999 Hz, at
D = 8 and D = 64, all in the same run, each configuration REPEAT times in turn.

  slowdown          the workload's CPU time under unwprof divided by its CPU
                    time without profiling (medians), at 99 and 999 Hz, D = 64
  ns per sample     all run time of unwprof's perf_event programs
                    (kernel.bpf_stats_enabled=1, restored afterwards; the
                    run_time_ns of the programs' fdinfo) over the samples the
                    summary counts (--stats-json), at 999 Hz
  frames per sample interpreter frames written over samples with them
  ns per frame      (ns per sample at D = 64 - at D = 8) / (frames per sample
                    at D = 64 - at D = 8): a Python call of 3.11+, a Ruby
                    call, a Perl call and a PHP call add no native frame, so the
                    difference is the cost of the interpreter frames alone
                    (a Perl sub's context is read with the loops' contexts
                    between, as its frames are)

The figures are medians over REPEAT; the spread (max/min of the REPEAT runs)
is printed next to each, as this machine is shared and noisy.
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
UNWPROF = os.path.join(BUILD, "cmd", "unwprof")
REPEAT = int(os.environ.get("REPEAT", "3"))
SID_ROOT = os.environ.get("UNWPROF_SID_ROOT", "/var/cache/unwprof-tests/sid")
WORK = int(os.environ.get("WORK", "1600"))

PYTHON = """
import sys, time
def burn(n):
    x = 0
    for i in range(n):
        x += i * i % 7
    return x
def down(d):
    return burn(20000) if d == 0 else down(d - 1)
t = time.process_time()
for _ in range(int(sys.argv[2])):
    down(int(sys.argv[1]))
print(f"cpu {time.process_time() - t:.4f}", file=sys.stderr)
"""

RUBY = """
def burn(n)
  x = 0
  i = 0
  while i < n
    x += i * i % 7
    i += 1
  end
  x
end
def down(d)
  d.zero? ? burn(20_000) : down(d - 1)
end
t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
ARGV[1].to_i.times { down(ARGV[0].to_i) }
warn format('cpu %.4f', Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t)
"""

PERL = """
use Time::HiRes qw(clock_gettime CLOCK_PROCESS_CPUTIME_ID);
sub burn {
    my ($n) = @_;
    my $x = 0;
    $x += $_ * $_ % 7 for 1 .. $n;
    return $x;
}
sub down {
    my ($d) = @_;
    return $d == 0 ? burn(20000) : down($d - 1);
}
my $t = clock_gettime(CLOCK_PROCESS_CPUTIME_ID);
down($ARGV[0]) for 1 .. $ARGV[1];
printf STDERR "cpu %.4f\\n", clock_gettime(CLOCK_PROCESS_CPUTIME_ID) - $t;
"""

PHP = """<?php
function burn(int $n): int
{
    $x = 0;
    for ($i = 0; $i < $n; $i++) {
        $x += $i * $i % 7;
    }
    return $x;
}
function down(int $d): int
{
    return $d == 0 ? burn(20000) : down($d - 1);
}
$t = getrusage();
for ($k = 0; $k < (int)$argv[2]; $k++) {
    down((int)$argv[1]);
}
$u = getrusage();
$cpu = ($u["ru_utime.tv_sec"] + $u["ru_stime.tv_sec"] - $t["ru_utime.tv_sec"] - $t["ru_stime.tv_sec"])
    + ($u["ru_utime.tv_usec"] + $u["ru_stime.tv_usec"] - $t["ru_utime.tv_usec"] - $t["ru_stime.tv_usec"]) / 1e6;
fprintf(STDERR, "cpu %.4f\\n", $cpu);
"""

SUFFIX = {"python": "py", "ruby": "rb", "perl": "pl", "php": "php"}


def interpreters():
    """(name, command, script, kind, root): root is where the command runs, None for /."""
    found = []
    if os.access("/usr/bin/python3.11", os.X_OK):
        found.append(("python3.11 (Debian)", ["/usr/bin/python3.11"], PYTHON, "python", None))
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip() \
        if subprocess.run(["sh", "-c", "command -v pyenv"], capture_output=True).returncode == 0 \
        else os.path.expanduser("~/.pyenv")
    for minor in ("3.13", "3.12"):
        builds = sorted(glob.glob(f"{root}/versions/{minor}.*/bin/python{minor}"))
        if builds:
            found.append((f"python{minor} (pyenv)", [builds[-1]], PYTHON, "python", None))
            break
    # The oldest: native frames between its Python frames.
    builds = sorted(glob.glob(f"{root}/versions/3.8.*/bin/python3.8"))
    if builds:
        found.append(("python3.8 (pyenv)", [builds[-1]], PYTHON, "python", None))
    if os.access("/usr/bin/ruby3.1", os.X_OK):
        found.append(("ruby3.1 (Debian)", ["/usr/bin/ruby3.1"], RUBY, "ruby", None))
    if os.access("/usr/bin/perl", os.X_OK):
        found.append(("perl 5.36 (Debian)", ["/usr/bin/perl"], PERL, "perl", None))
    if os.access("/usr/bin/php8.2", os.X_OK):
        found.append(("php8.2 (Debian)", ["/usr/bin/php8.2"], PHP, "php", None))
    for minor in ("3.14", "3.15"):
        if os.access(f"{SID_ROOT}/usr/bin/python{minor}", os.X_OK):
            found.append((f"python{minor} (sid, chroot)", ["chroot", SID_ROOT, f"python{minor}"],
                          PYTHON, "python", SID_ROOT))
    if os.access(f"{SID_ROOT}/usr/bin/ruby3.3", os.X_OK):
        found.append(("ruby3.3 (sid, chroot)", ["chroot", SID_ROOT, "ruby3.3"], RUBY, "ruby",
                      SID_ROOT))
    if os.access(f"{SID_ROOT}/usr/bin/perl", os.X_OK):
        found.append(("perl 5.42 (sid, chroot)", ["chroot", SID_ROOT, "perl"], PERL, "perl",
                      SID_ROOT))
    if os.access(f"{SID_ROOT}/usr/bin/php8.4", os.X_OK):
        found.append(("php8.4 (sid, chroot)", ["chroot", SID_ROOT, "php8.4"], PHP, "php",
                      SID_ROOT))
    return [f for f in found if os.environ.get("ONLY", "") in f[0]]


def cpu_of(stderr):
    for line in stderr.splitlines():
        if line.startswith("cpu "):
            return float(line.split()[1])
    raise SystemExit(f"interp.py: the workload printed no CPU time:\n{stderr}")


def bpf_run_time(pid, stop, out):
    """Sums run_time_ns of pid's perf_event programs, read until stop is set."""
    while not stop.is_set():
        ns = 0
        try:
            for fd in os.listdir(f"/proc/{pid}/fdinfo"):
                fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/fdinfo/{fd}")
                              if ":" in line)
                if fields.get("prog_type", "").strip() == "7" and "link_id" not in fields:
                    ns += int(fields.get("run_time_ns", "0"))
        except OSError:
            pass
        if ns:
            out[0] = ns
        time.sleep(0.005)


def run(exe, script_path, kind, depth, freq, tmp):
    """(workload CPU s, ns per sample, frames per sample); the last two None unprofiled."""
    cmd = exe + [script_path, str(depth), str(WORK)]
    if freq is None:
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return cpu_of(p.stderr), None, None
    stats = os.path.join(tmp, "stats.json")
    p = subprocess.Popen([UNWPROF, "record", "--quiet", "-F", str(freq), "-o",
                          os.path.join(tmp, "out.folded"), "--stats-json", stats, "--"] + cmd,
                         stderr=subprocess.PIPE, text=True)
    stop, ns = threading.Event(), [0]
    watcher = threading.Thread(target=bpf_run_time, args=(p.pid, stop, ns))
    watcher.start()
    _, err = p.communicate()
    stop.set()
    watcher.join()
    if p.returncode:
        raise SystemExit(f"interp.py: unwprof record failed:\n{err}")
    st = json.load(open(stats))
    samples = st["samples"]["count"] if isinstance(st["samples"], dict) else st["samples"]
    with_frames = st[kind]["count"] if isinstance(st[kind], dict) else st[kind]
    frames = st[f"{kind}_frames"]
    return (cpu_of(err), ns[0] / samples if samples else 0,
            frames / with_frames if with_frames else 0)


def median_spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    return statistics.median(values), max(values) / min(values) if min(values) > 0 else 0


def main():
    if os.geteuid() != 0:
        raise SystemExit("interp.py: needs root (BPF, perf events, sysctl)")
    if not os.access(UNWPROF, os.X_OK):
        raise SystemExit(f"interp.py: {UNWPROF} not found: build first")
    before = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, exe, script, kind, root in interpreters():
                # the script where the interpreter finds it: inside its root
                where = tempfile.mkdtemp(dir=f"{root}/tmp") if root else tmp
                path = os.path.join(where, f"{kind}_work.{SUFFIX[kind]}")
                open(path, "w").write(script)
                if root:
                    path = path[len(root):]
                configs = [(d, f) for d in (8, 64) for f in (None, 99, 999)]
                results = {c: [] for c in configs}
                for _ in range(REPEAT):
                    for d, f in configs:
                        results[(d, f)].append(run(exe, path, kind, d, f, tmp))
                if root:
                    shutil.rmtree(where)
                report(name, results)
    finally:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write(before)


def report(name, results):
    def med(d, f, i):
        return median_spread([r[i] for r in results[(d, f)]])

    plain, plain_sp = med(64, None, 0)
    print(f"{name}: workload CPU without profiling {plain:.3f} s (spread {plain_sp:.2f}x)")
    for f in (99, 999):
        cpu, sp = med(64, f, 0)
        print(f"  {f:>3} Hz, depth 64: slowdown {cpu / plain:.3f}x (spread {sp:.2f}x)")
    ns8, sp8 = med(8, 999, 1)
    ns64, sp64 = med(64, 999, 1)
    fr8, _ = med(8, 999, 2)
    fr64, _ = med(64, 999, 2)
    print(f"  999 Hz: {ns8:.0f} ns per sample with {fr8:.1f} frames (spread {sp8:.2f}x), "
          f"{ns64:.0f} ns with {fr64:.1f} (spread {sp64:.2f}x)")
    if fr64 > fr8:
        print(f"  ns per interpreter frame: {(ns64 - ns8) / (fr64 - fr8):.1f}")


if __name__ == "__main__":
    main()

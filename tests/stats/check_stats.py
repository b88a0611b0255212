#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks the file of `unwprof record --stats-json FILE`.

  check_stats.py JSON [--summary STDERR] [--min-walked PERCENT] [--max-not-drained N]
                [--min-cached PERCENT]

Schema 3: every key with its type (the counts' keys as bpf/abi.h's UNW_STATS and
UNW_OFF_STATS and core/session/session.h's SESSION_STATS define them); shares whose percent is their count over
the samples with a user stack (not idle, not of kernel threads, not inside
exec); every such sample not walked to the bottom is accounted for as
truncated or by an error reason; the outcomes (walked, frame pointers,
failed, idle, kernel threads, exec, lost, not drained) add up to the samples; bytes_loaded is
rows_loaded 4-byte rows with their page map and rules; the memory (peak RSS, BPF maps) is measured;
bpf_ns_per_sample is a number when kernel.bpf_stats_enabled is 1, else null;
the files with frames left unnamed for want of symbols (at most 10, the most
first) hold the frames counted in frames_without_symbols (all of them when fewer
than 10 files are listed);
BPF's own histogram timed every sample (bpf_samples_timed), and its median and
p99 (bpf_ns_sample_p50 <= bpf_ns_sample_p99) are more than 0 ns; the same
samples by what they paid for (bpf_sample_costs) add up to them.
--summary: the numbers equal those of the summary record printed on stderr,
including the "samples accounted" line and the lines of what was left out
(events lost, processes over limit, processes gone, files replaced, files
skipped, files refused by reason) and of the frames without symbols, which the
summary prints only when they are not 0.
--min-walked: at least PERCENT of the samples walked to the bottom.
--max-not-drained: how many samples may be taken but never delivered nor
counted as lost (default 0: after the last drain every sample is somewhere).
--min-cached: at least PERCENT of the frames looked up were answered by the
sampler's cache of lookups (frames_cached of frames_looked_up, which it
always is at most).

Exit status: 0 when every check holds, 1 otherwise (each failure on stderr).
"""
import argparse
import json
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# A row, an entry of the page map, a rule of the dictionary (bpf/abi.h).
ROW_BYTES, PAGE_BYTES, RULE_BYTES = 4, 8, 16


def stat_rows(header, macro):
    """The rows (key, label, show) of list macro of header: bpf/abi.h's UNW_STATS and
    UNW_OFF_STATS, X(ID, FIELD, "KEY", "LABEL", SHOW, ...); session.h's SESSION_STATS,
    X(FIELD, "KEY", "LABEL", SHOW, ...). Each key the summary has, defined once there."""
    with open(os.path.join(SRC, header)) as f:
        text = f.read()
    block = re.search(r"#define " + macro + r"\(X\)((?:.*\\\n)*.*)", text)
    if not block:
        sys.exit(f"FAIL: {header}: no list {macro}")
    rows = re.findall(r'X\(\s*(?:\w+,\s*)?\w+,\s*"([^"]*)",\s*"([^"]*)",\s*UNW_SHOW_(\w+)',
                      block.group(1).replace("\\\n", " "))
    if not rows:
        sys.exit(f"FAIL: {header}: {macro} has no row")
    return rows


STAT_ROWS = (stat_rows("bpf/abi.h", "UNW_STATS") +
             stat_rows("core/session/session.h", "SESSION_STATS"))
OFF_CPU_KEYS = [key for key, _, _ in stat_rows("bpf/abi.h", "UNW_OFF_STATS")]
# Shares: {count, percent} of the samples with a user stack.
SHARES = tuple(key for key, _, show in STAT_ROWS if show in ("SHARE", "BESIDE"))
# What kept processes or files from their tables: JSON key, summary label.
LEFT_OUT = {key: label for key, label, show in STAT_ROWS if show == "LEFT_OUT"}
OUTCOMES = ("walked", "frame_pointer", "failed", "idle", "kernel_threads", "exec", "lost")
# Memory: JSON key (bytes), summary label (MiB).
MEMORY = {"peak_rss_bytes": "peak RSS"}
MEMORY.update({key: label for key, label, show in STAT_ROWS if show == "BYTES"})
COUNTS = (("user_samples", "bpf_samples_timed", "frequency_hz", "peak_rss_bytes",
           "frames_without_symbols") +
          tuple(key for key, _, show in STAT_ROWS if key and show not in ("SHARE", "BESIDE")))
# The percentiles of BPF's histogram of sample times: ns, null when no sample was timed.
TIMES = ("bpf_ns_sample_p50", "bpf_ns_sample_p99")
# What a sample paid for (bpf_sample_costs), then the samples that paid for none, or some.
COSTS = ("switched", "process_lookup", "table_lookup", "stack_grown", "kernel_stack",
         "new_count", "new_stack", "event")


def shown_value(key, show):
    return (lambda s: s[key]["count"]) if show in ("SHARE", "BESIDE") else (lambda s: s[key])


# Summary lines: label, then the JSON value it shows: the rows shown on lines of their
# own, the rows loaded (a line of its own, whose other figures are in MiB), the errors.
SUMMARY = {label: shown_value(key, show) for key, label, show in STAT_ROWS
           if show in ("COUNT", "SHARE")}
SUMMARY["unwind rows loaded"] = lambda s: s["rows_loaded"]
SUMMARY["errors"] = lambda s: sum(s["errors"].values())

failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + msg, file=sys.stderr)
    return cond


def is_count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_types(s):
    check(s.get("schema") == 3, f"schema is {s.get('schema')!r}, expected 3")
    check(isinstance(s.get("failures"), list) and all(
        isinstance(f, dict) and isinstance(f.get("file"), str) and f.get("reason") in s["errors"]
        and is_count(f.get("samples")) and f["samples"] > 0 for f in s["failures"]),
        f"failures is {s.get('failures')!r}, expected a list of file, reason, samples")
    check(is_number(s.get("duration_s")) and s["duration_s"] > 0,
          f"duration_s is {s.get('duration_s')!r}, expected a positive number")
    for key in COUNTS:
        check(is_count(s.get(key)), f"{key} is {s.get(key)!r}, expected a count")
    for key in SHARES:
        v = s.get(key)
        if check(isinstance(v, dict) and set(v) == {"count", "percent"},
                 f"{key} is {v!r}, expected {{count, percent}}"):
            check(is_count(v["count"]) and is_number(v["percent"]),
                  f"{key} is {v!r}, expected a count and a number")
    outcomes = s.get("outcomes")
    if check(isinstance(outcomes, dict) and set(outcomes) == set(OUTCOMES) | {"not_drained"},
             f"outcomes is {outcomes!r}, expected {', '.join(OUTCOMES)}, not_drained"):
        for key in OUTCOMES:
            check(is_count(outcomes[key]), f"outcomes.{key} is {outcomes[key]!r}, expected a count")
        check(isinstance(outcomes["not_drained"], int),
              f"outcomes.not_drained is {outcomes['not_drained']!r}, expected an integer")
    errors = s.get("errors")
    if check(isinstance(errors, dict) and errors, f"errors is {errors!r}, expected reasons"):
        for k, v in errors.items():
            check(re.fullmatch(r"[a-z][a-z0-9-]*", k) and is_count(v),
                  f"errors: {k!r}: {v!r}, expected a reason and a count")
    v = s.get("bpf_ns_per_sample", "missing")
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled") as f:
            enabled = f.read().strip() == "1"
    except OSError:
        enabled = False
    if enabled:
        check(is_number(v) and v > 0,
              f"bpf_ns_per_sample is {v!r} with kernel.bpf_stats_enabled=1, expected ns")
    else:
        check(v is None, f"bpf_ns_per_sample is {v!r} without BPF stats, expected null")
    for key in TIMES:
        v = s.get(key, "missing")
        check(v is None or is_number(v), f"{key} is {v!r}, expected ns or null")
    off_cpu = s.get("off_cpu", "missing")
    check(off_cpu is None or (isinstance(off_cpu, dict) and list(off_cpu) == OFF_CPU_KEYS and
                              all(is_count(v) for v in off_cpu.values())),
          f"off_cpu is {off_cpu!r}, expected null or the counts {', '.join(OFF_CPU_KEYS)}")
    unnamed = s.get("files_without_symbols")
    check(isinstance(unnamed, list) and len(unnamed) <= 10 and all(
        isinstance(f, dict) and set(f) == {"file", "build_id", "frames"} and
        isinstance(f["file"], str) and is_count(f["frames"]) and f["frames"] > 0 and
        (f["build_id"] is None or re.fullmatch(r"[0-9a-f]+", f["build_id"])) for f in unnamed),
        f"files_without_symbols is {unnamed!r}, expected a list of file, build_id, frames")
    costs = s.get("bpf_sample_costs")
    if check(isinstance(costs, dict) and set(costs) == set(COSTS) | {"none", "any"},
             f"bpf_sample_costs is {costs!r}, expected {', '.join(COSTS)}, none, any"):
        for k, v in costs.items():
            check(isinstance(v, dict) and set(v) == {"samples", "mean_ns"} and
                  is_count(v["samples"]) and (v["mean_ns"] is None or is_number(v["mean_ns"])),
                  f"bpf_sample_costs.{k} is {v!r}, expected samples and mean_ns")


def check_sums(s, max_not_drained, min_cached):
    n = s["samples"]
    check(n > 0, "no samples")
    o = s["outcomes"]
    # the shares are of the samples with a user stack: not idle, not of kernel threads, not in exec
    check(s["user_samples"] == n - o["idle"] - o["kernel_threads"] - o["exec"],
          f"user_samples {s['user_samples']}: not {n} samples - idle - kernel threads - exec"
          f" ({o})")
    n = s["user_samples"]
    for key in SHARES:
        c, p = s[key]["count"], s[key]["percent"]
        check(c <= n, f"{key}: {c} of {n} samples")
        want = round(100.0 * c / n, 2) if n else 0
        check(abs(p - want) < 0.006, f"{key}: percent {p}, expected {want} ({c} of {n})")
    check(s["frame_pointer_bottom"]["count"] <= s["frame_pointer"]["count"],
          "frame_pointer_bottom: more samples than frame_pointer")
    # A walk ends at the bottom, at the depth limit, or where an error is counted.
    not_walked = n - s["walked"]["count"]
    accounted = s["truncated"]["count"] + sum(s["errors"].values())
    check(not_walked <= accounted,
          f"{not_walked} samples not walked to the bottom, only {accounted} truncated or errors")
    n = s["samples"]
    parts = sum(o[k] for k in OUTCOMES) + o["not_drained"]
    check(parts == n, f"outcomes {o} add up to {parts}, not to the {n} samples")
    check(abs(o["not_drained"]) <= max_not_drained,
          f"{o['not_drained']} samples neither delivered nor lost, at most {max_not_drained}")
    check(o["lost"] == s["lost"], f"outcomes.lost {o['lost']}, lost {s['lost']}")
    unnamed = s["files_without_symbols"]
    in_files = sum(f["frames"] for f in unnamed)
    check(in_files <= s["frames_without_symbols"] and
          (len(unnamed) == 10 or in_files == s["frames_without_symbols"]),
          f"files_without_symbols: {in_files} frames in {len(unnamed)} files, "
          f"frames_without_symbols {s['frames_without_symbols']}")
    check(all(a["frames"] >= b["frames"] for a, b in zip(unnamed, unnamed[1:])),
          "files_without_symbols: not the most first")
    check_times(s)
    check_costs(s)
    check_lookups(s, min_cached)
    for key in MEMORY:
        check(s[key] > 0, f"{key} is 0: memory not measured")
    check(s["bpf_map_bytes"] >= s["bytes_loaded"],
          f"bpf_map_bytes {s['bpf_map_bytes']} is less than the {s['bytes_loaded']} bytes of rows")
    index = s["pages_loaded"] * PAGE_BYTES + s["rules_loaded"] * RULE_BYTES
    check(s["bytes_loaded"] == s["rows_loaded"] * ROW_BYTES + index,
          f"bytes_loaded {s['bytes_loaded']} is not {s['rows_loaded']} rows of {ROW_BYTES} "
          f"and {index} bytes of pages and rules")
    check(not s["rows_loaded"] or s["bytes_loaded"] <= 4.5 * s["rows_loaded"],
          f"bytes_loaded {s['bytes_loaded']}: more than 4.5 bytes a row of {s['rows_loaded']}")


def check_lookups(s, min_cached):
    """The cached lookups are some of the lookups, at least min_cached percent when given."""
    looked, cached = s["frames_looked_up"], s["frames_cached"]
    check(cached <= looked, f"frames_cached {cached}: more than the {looked} frames looked up")
    if min_cached is not None:
        check(looked > 0 and 100 * cached >= min_cached * looked,
              f"frames_cached {cached} of {looked} looked up: less than {min_cached}%")


def check_times(s):
    """Every sample BPF counted was timed, at its end; the percentiles are in order."""
    timed, p50, p99 = s["bpf_samples_timed"], s["bpf_ns_sample_p50"], s["bpf_ns_sample_p99"]
    check(timed == s["samples"], f"bpf_samples_timed {timed}, not the {s['samples']} samples")
    check(timed >= s["walked"]["count"],
          f"bpf_samples_timed {timed}: fewer than the {s['walked']['count']} walked")
    if not timed:
        check(p50 is None and p99 is None, f"no sample timed, yet p50 {p50!r}, p99 {p99!r}")
        return
    if check(p50 is not None and p99 is not None, f"{timed} samples timed, p50 {p50!r}, p99 {p99!r}"):
        check(0 < p50 <= p99, f"bpf_ns_sample_p50 {p50}, bpf_ns_sample_p99 {p99}: not 0 < p50 <= p99")


def check_costs(s):
    """The samples timed are those that paid for no cost and those that paid for some; each
    that paid for some paid for one at least; a mean where there are samples, none where
    not; a walked stack was stored, its count added and its process looked up once at least,
    and a frame not cached was looked up in the tables."""
    c = s["bpf_sample_costs"]
    none, some = c["none"]["samples"], c["any"]["samples"]
    check(none + some == s["bpf_samples_timed"],
          f"bpf_sample_costs: none {none} + any {some}, not the {s['bpf_samples_timed']} timed")
    check(sum(c[k]["samples"] for k in COSTS) >= some,
          f"bpf_sample_costs: {some} samples paid for some cost, fewer for each")
    for k, v in c.items():
        check(v["samples"] <= (some if k in COSTS else s["bpf_samples_timed"]),
              f"bpf_sample_costs.{k}: {v['samples']} samples, more than paid for any")
        check((v["mean_ns"] is None) == (v["samples"] == 0) and (v["mean_ns"] or 1) > 0,
              f"bpf_sample_costs.{k}: mean_ns {v['mean_ns']!r} of {v['samples']} samples")
    if s["walked"]["count"]:
        for k in ("new_count", "new_stack", "process_lookup", "switched"):
            check(c[k]["samples"] > 0, f"bpf_sample_costs.{k}: no sample, yet stacks walked")
    if s["frames_looked_up"] > s["frames_cached"]:
        check(c["table_lookup"]["samples"] > 0,
              f"bpf_sample_costs.table_lookup: no sample, yet "
              f"{s['frames_looked_up'] - s['frames_cached']} frames not cached")


def check_summary_times(s, text, path):
    """The line "BPF ns per sample MEAN|-   (median N, p99 N)" shows the JSON's figures."""
    m = re.search(r"^\s+BPF ns per sample\s+(\d+|-)(?:\s+\(median (\d+), p99 (\d+)\))?$",
                  text, re.M)
    if s["bpf_ns_per_sample"] is None and not s["bpf_samples_timed"]:
        check(not m, f"{path}: a 'BPF ns per sample' line without any figure")
        return
    if not check(m, f"{path}: no 'BPF ns per sample' line"):
        return
    mean = s["bpf_ns_per_sample"]
    if mean is None:
        check(m.group(1) == "-", f"BPF ns per sample: {m.group(1)} in the summary, null in the JSON")
    else:
        check(m.group(1) != "-" and abs(int(m.group(1)) - mean) <= 1,
              f"BPF ns per sample: {m.group(1)} in the summary, {mean} in the JSON")
    if not check(m.group(2) is not None, f"{path}: BPF ns per sample without median and p99"):
        return
    for got, key in ((m.group(2), "bpf_ns_sample_p50"), (m.group(3), "bpf_ns_sample_p99")):
        check(abs(int(got) - s[key]) <= 1, f"{key}: {got} in the summary, {s[key]} in the JSON")


def parse_summary(path):
    with open(path) as f:
        text = f.read()
    values = {}
    m = re.search(r"recorded ([0-9.]+) s", text)
    if m:
        values["duration"] = float(m.group(1))
    for line in text.splitlines():
        m = re.match(r"\s+(\S.*?)\s+(\d+)(?:\s+([0-9.]+)%)?", line)
        if m:
            values[m.group(1)] = (int(m.group(2)), m.group(3))
        m = re.match(r"\s+errors\s+\d+\s+(.*)", line)
        if m:
            for part in m.group(1).split(", "):
                name, count = part.rsplit(" ", 1)
                values["error " + name] = int(count)
    return values


def check_summary(s, path):
    shown = parse_summary(path)
    if check("duration" in shown, f"{path}: no 'recorded N s' line"):
        check(abs(shown["duration"] - s["duration_s"]) < 0.051,
              f"duration_s {s['duration_s']}, the summary says {shown['duration']} s")
    for label, get in SUMMARY.items():
        if not check(label in shown, f"{path}: no '{label}' line"):
            continue
        check(shown[label][0] == get(s),
              f"{label}: {shown[label][0]} in the summary, {get(s)} in the JSON")
    for key, label, show in STAT_ROWS:
        if show != "SHARE":
            continue
        if label in shown and shown[label][1] is not None:
            check(abs(float(shown[label][1]) - s[key]["percent"]) < 0.051,
                  f"{label}: {shown[label][1]}% in the summary, {s[key]['percent']} in the JSON")
    for k, v in shown.items():
        if k.startswith("error "):
            name = k[len("error "):]
            check(s["errors"].get(name) == v, f"error {name}: {v} in the summary, "
                  f"{s['errors'].get(name)} in the JSON")
    accounted = re.search(r"samples accounted\s+(\d+) = walked (\d+) \+ frame pointers (\d+)"
                          r" \+ failed (\d+)(?: \+ idle (\d+) \+ kernel threads (\d+))?"
                          r"(?: \+ exec (\d+))? \+ lost (\d+)(?: \+ not drained (-?\d+))?",
                          open(path).read())
    if check(accounted, f"{path}: no 'samples accounted' line"):
        o = s["outcomes"]
        want = (s["samples"], o["walked"], o["frame_pointer"], o["failed"], o["idle"],
                o["kernel_threads"], o["exec"], o["lost"], o["not_drained"])
        got = tuple(int(g) if g else 0 for g in accounted.groups())
        check(got == want, f"samples accounted: {got} in the summary, {want} in the JSON")
    for key, label in MEMORY.items():
        m = re.search(r"^\s+" + label + r"\s+([0-9.]+) MiB$", open(path).read(), re.M)
        if check(m, f"{path}: no '{label}' line"):
            check(abs(float(m.group(1)) - s[key] / 2**20) < 0.051,
                  f"{label}: {m.group(1)} MiB in the summary, {s[key]} bytes in the JSON")
    for key, label in LEFT_OUT.items():
        n = shown.get(label, (0, None))[0]
        check(n == s[key], f"{label}: {n} in the summary, {s[key]} in the JSON")
    n = shown.get("inside exec", (0, None))[0]
    check(n == s["outcomes"]["exec"],
          f"inside exec: {n} in the summary, {s['outcomes']['exec']} in the JSON")
    check_summary_times(s, open(path).read(), path)
    n = shown.get("frames without symbols", (0, None))[0]
    check(n == s["frames_without_symbols"],
          f"frames without symbols: {n} in the summary, {s['frames_without_symbols']} in the JSON")
    left_out = shown.get("unwind rows left out", (0, None))[0]
    check(left_out == s["rows_unplaced"],
          f"rows left out: {left_out} in the summary, {s['rows_unplaced']} in the JSON")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--summary")
    ap.add_argument("--min-walked", type=float)
    ap.add_argument("--max-not-drained", type=int, default=0)
    ap.add_argument("--min-cached", type=float)
    args = ap.parse_args()
    try:
        with open(args.json) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: {args.json}: {e}", file=sys.stderr)
        return 1
    if not check(isinstance(s, dict), f"{args.json}: not a JSON object"):
        return 1
    check_types(s)
    if failures:
        print(json.dumps(s, indent=2), file=sys.stderr)
        return 1
    check_sums(s, args.max_not_drained, args.min_cached)
    if args.summary:
        check_summary(s, args.summary)
    if args.min_walked is not None:
        check(s["walked"]["percent"] >= args.min_walked,
              f"{s['walked']['percent']}% walked to the bottom, expected {args.min_walked}%")
    print(f"{args.json}: {s['samples']} samples, {s['walked']['percent']}% walked, "
          f"{failures} failure(s)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

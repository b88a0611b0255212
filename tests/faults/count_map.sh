#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A tiny count map (--count-map-entries 16) under many distinct stacks (64
# threads, --tid keys each apart). Injected: a map that fills every few
# milliseconds. Expected: samples are drained in time or counted as lost,
# and the summary's parts add up: walked + frame pointers + failed + lost
# (+ not drained, taken while the run stopped) = samples, in the summary
# and in --stats-json alike. Lost: counted.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

start_fault many_threads 64 3
pid=$workload_pid
wait_for "$tmp/many_threads.bg.out" tid
record_bg tiny --tid -F 999 -d 4 --count-map-entries 16 --stats-json "$tmp/tiny.json" \
	-o "$tmp/tiny.folded" -p "$pid"
wait_sampling "$(unwprof_pid)"
kill -USR1 "$pid"
record_wait tiny
expect_rc 0
python3 - "$tmp/tiny.json" "$tmp/tiny.err" "$tmp/tiny.folded" << 'PY' || fail "the totals do not add up"
import json, re, sys
s = json.load(open(sys.argv[1]))
o = s["outcomes"]
parts = o["walked"] + o["frame_pointer"] + o["failed"] + o["lost"] + o["not_drained"]
print(f"samples {s['samples']} = {o}", file=sys.stderr)
ok = parts == s["samples"] and o["lost"] == s["lost"]
# Taken while the run stopped: a few milliseconds of two CPUs at most.
ok &= 0 <= o["not_drained"] <= max(20, s["samples"] // 100)
# What was drained is what the profile holds.
total = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[3]))
ok &= total == o["walked"] + o["frame_pointer"] + o["failed"]
print(f"profile total {total}", file=sys.stderr)
line = next(l for l in open(sys.argv[2]) if "samples accounted" in l)
nums = [int(n) for n in re.findall(r"\d+", line)]
ok &= nums[0] == s["samples"] and sum(nums[1:]) == s["samples"]
# Enough samples to fill the map many times over, even on a loaded machine.
ok &= s["samples"] >= 300
sys.exit(0 if ok else 1)
PY
finish

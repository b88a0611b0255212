#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Code generated at run time (tests/workloads/jit.c): anonymous executable
# memory without unwind tables, named in /tmp/perf-PID.map.
# - jit_framed keeps a frame pointer: the walk falls back to frame pointers
#   there and gets back into the DWARF tables of its caller, so its samples
#   have the whole stack, main;run_framed;jit_framed, named from the map.
# - jit_bare clears rbp: nothing can find its caller. Its samples must not
#   count as walked to the bottom; they count as no-frame-pointer errors.
# Then the same code named in a jitdump (perf's binary format) instead, in a
# directory of the test's, which only the mapping of the file tells: the
# samples of jit_framed have the same stack, named from it.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || e2e_skip "the generated code of the jit workload is x86_64"

record jit -F 999 -o "$tmp/jit.folded" --stats-json "$tmp/jit.json" -- "$WORKLOADS/jit" 3
# The map file is the runtime's to leave behind; the test's to remove.
pid=$(sed -n 's/^ready //p' "$tmp/jit.out")
if [ -n "$pid" ]; then rm -f "/tmp/perf-$pid.map"; fi
expect_rc 0
check stacks "$tmp/jit.folded" --comm jit --leaf jit_framed \
	--expect '{START};main;run_framed;jit_framed' --min-ratio 0.95 --min-samples 300
python3 - "$tmp/jit.folded" "$tmp/jit.json" << 'PY' || fail "jit_bare's samples were not counted as cut short"
import json, sys
bare = sum(int(line.rsplit(" ", 1)[1]) for line in open(sys.argv[1])
           if line.rsplit(" ", 1)[0].endswith(";jit_bare"))
s = json.load(open(sys.argv[2]))
no_fp = s["errors"]["no-frame-pointer"]
walked = s["walked"]["count"]
print(f"jit_bare samples {bare}, no-frame-pointer errors {no_fp}, "
      f"walked to the bottom {walked} of {s['samples']}", file=sys.stderr)
# Every sample in jit_bare's loop is one that nothing can walk further.
sys.exit(not (bare >= 300 and no_fp >= bare * 0.95 and walked <= s["samples"] - no_fp))
PY

mkdir "$tmp/dumps"
record jitdump -F 999 -o "$tmp/jitdump.folded" -- "$WORKLOADS/jit" 3 "$tmp/dumps"
expect_rc 0
pid=$(sed -n 's/^ready //p' "$tmp/jitdump.out")
[ -n "$pid" ] && [ ! -e "/tmp/perf-$pid.map" ] || fail "the jit workload wrote a perf map"
[ -s "$tmp/dumps/jit-$pid.dump" ] || fail "the jit workload wrote no jitdump"
check stacks "$tmp/jitdump.folded" --comm jit --leaf jit_framed \
	--expect '{START};main;run_framed;jit_framed' --min-ratio 0.95 --min-samples 300
finish

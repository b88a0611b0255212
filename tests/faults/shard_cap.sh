#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tables larger than the shard cap: --max-shards 1 (65536 rows) while one
# target maps libLLVM-14.so.1 (about a million rows) and a second, small one
# runs beside it (-p A,B). Injected: tables over the cap. Expected: no
# crash, the rows left out are reported in the summary and the JSON, frames
# there are walked with frame pointers, and the small process's stacks are
# still complete. Lost: the rows over the cap (counted), no sample.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

[ -e /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/libLLVM-14.so.1 ] ||
	e2e_skip "libLLVM-14.so.1 is not installed (Debian package libllvm14)"

start_fault llvm_user 60
big=$workload_pid
start_workload chain-pie 60
small=$workload_pid
wait_for "$tmp/llvm_user.bg.out" loaded || finish

record cap --pid -F 999 -d 3 --max-shards 1 -p "$big,$small" -o "$tmp/cap.folded" \
	--stats-json "$tmp/cap.json"
expect_rc 0
check summary "$tmp/cap.err" "unwind rows left out" --min 100000
python3 - "$tmp/cap.json" << 'PY' || fail "--stats-json does not count the rows left out"
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["rows_unplaced"] >= 100000 else 1)
PY
check stacks "$tmp/cap.folded" --comm chain-pie --leaf leaf \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.99 --min-samples 500
# Its own chain is in its executable: with or without a table there, the
# leaf and its callers up to main must be there.
check stacks "$tmp/cap.folded" --comm llvm_user --leaf big_leaf \
	--expect '.*main;big_outer;big_inner;big_leaf' --min-ratio 0.95 --min-samples 500
kill -0 "$big" 2> /dev/null || fail "llvm_user did not survive the recording"
finish

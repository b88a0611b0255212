#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reasons a walk meets that only a failing kernel produces, injected with
# UNWPROF_BPF_FAULT (core/session/session.c) so that their counting is tested:
#  - every tail call of the walk fails (its program array emptied): each
#    sample counts tail-call-failed, none is walked, none is lost, and the
#    parts of the summary still add up;
#  - the shards are missing from their array of maps: each sample counts
#    shard-missing and falls back to frame pointers.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_test_hooks UNWPROF_BPF_FAULT

# Samples counted under reason in summary $1, as a share of all samples: at least $3.
reason_share() {
	python3 - "$1" "$2" "$3" << 'PY' || fail "$2: not counted for every sample"
import re, sys
text = open(sys.argv[1]).read()
samples = int(re.search(r"samples\s+(\d+)", text).group(1))
m = re.search(re.escape(sys.argv[2]) + r" (\d+)", text)
n = int(m.group(1)) if m else 0
acc = [int(x) for x in re.findall(r"\d+", next(l for l in text.splitlines() if "samples accounted" in l))]
print(f"{sys.argv[2]}: {n} of {samples} samples; accounted {acc}", file=sys.stderr)
ok = samples >= 200 and n >= float(sys.argv[3]) * samples
ok &= acc[0] == samples and sum(acc[1:]) == samples
sys.exit(0 if ok else 1)
PY
}

UNWPROF_BPF_TAIL_CALLS=1 UNWPROF_BPF_FAULT=tail-call \
	record tailcall -F 999 -o "$tmp/tailcall.folded" -- "$WORKLOADS/chain-pie" 2
expect_rc 0
reason_share "$tmp/tailcall.err" tail-call-failed 0.99
grep -q "walked to the bottom  *0 " "$tmp/tailcall.err" || fail "walks counted although no tail call ran"

UNWPROF_BPF_FAULT=shard record shard -F 999 -o "$tmp/shard.folded" -- "$WORKLOADS/chain-pie" 2
expect_rc 0
reason_share "$tmp/shard.err" shard-missing 0.99
finish

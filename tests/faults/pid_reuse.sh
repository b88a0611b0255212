#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A profiled process exits and a new process with another executable gets
# its pid during the run. Injected: the reuse, forced through
# /proc/sys/kernel/ns_last_pid. Expected: each process's samples carry its
# own frames and symbols; none of the new one's samples are walked with or
# named after the old one's tables, and the other way round. Lost: nothing.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record reuse --pid -F 999 -o "$tmp/reuse.folded" -- \
	"$e2e_dir/../faults/reuse_pid.py" "$WORKLOADS/chain-pie" 1.5 -- "$WORKLOADS/burn" 1500
expect_rc 0
pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$tmp/reuse.err")
[ -n "$pid" ] || fail "reuse_pid.py did not print the pid"
grep -q "^chain-pie-$pid;" "$tmp/reuse.folded" || fail "no stack of chain-pie-$pid"
grep -q "^burn-$pid;" "$tmp/reuse.folded" || fail "no stack of burn-$pid: the pid was not reused"
chain_frame='(?<![^;])(?:f[1-8]|leaf)(?![^;])'
burn_frame='(?<![^;])burn_(?:outer|inner|leaf)(?![^;])'
check stacks "$tmp/reuse.folded" --comm chain-pie --leaf leaf \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.95 --min-samples 300 \
	--never "$burn_frame"
check stacks "$tmp/reuse.folded" --comm burn --leaf burn_leaf \
	--expect '{START};main;burn_outer;burn_inner;burn_leaf' --min-ratio 0.95 --min-samples 300 \
	--never "$chain_frame"
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A library unloaded half-way through the run and another loaded at its
# address: the same pcs, other code, other unwind rules (the workload checks
# the address). The samples in each library are complete: what the walk
# learnt of the first library's pcs is not used for the second's.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record dlswap -F 999 -o "$tmp/dlswap.folded" -- "$WORKLOADS/dlswap" 4
expect_rc 0
for frame in 256 2048; do
	check stacks "$tmp/dlswap.folded" --comm dlswap --leaf swap_leaf --through "swap_mid_$frame" \
		--expect "{START};main;run_until;run_lib;swap_entry;swap_mid_$frame;swap_leaf" \
		--min-ratio 0.95 --min-samples 150
done
finish

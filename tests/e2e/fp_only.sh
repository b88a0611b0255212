#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The chain workload with --fp-only: without DWARF tables the walk stops at
# the first function that does not keep a frame pointer, so most samples in
# leaf must NOT reach main. Together with chain.sh this shows that complete
# stacks come from the DWARF tables.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record fp --fp-only -F 999 -o "$tmp/fp.folded" -- "$WORKLOADS/chain-pie" 2
expect_rc 0
check stacks "$tmp/fp.folded" --comm chain-pie --leaf leaf --expect '(?:.*;)?main(?:;.*)?' \
	--max-ratio 0.5 --min-samples 200
finish

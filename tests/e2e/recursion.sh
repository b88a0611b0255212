#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Recursions of the depth real programs reach (compilers: 200 to 400
# frames), then deeper than the unwinder's limit of 512 frames.
#  - 400 deep (main -> descend x401 -> bottom): every sample with the leaf
#    has the whole chain from the process's start, nothing truncated.
#  - 700 deep: the samples keep at least 511 frames nearest the leaf, and
#    the summary counts them as truncated.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record recurse400 -F 999 -o "$tmp/recurse400.folded" -- "$WORKLOADS/recurse" 2 400
expect_rc 0
descend=$(printf 'descend;%.0s' $(seq 401))
check stacks "$tmp/recurse400.folded" --comm recurse --leaf bottom \
	--expect "{START};main;${descend}bottom" --min-ratio 0.99 --min-samples 200
grep -q "truncated  *0 " "$tmp/recurse400.err" || fail "400 frames deep: samples counted as truncated"

record recurse700 -F 999 -o "$tmp/recurse700.folded" -- "$WORKLOADS/recurse" 2 700
expect_rc 0
check deep "$tmp/recurse700.folded" --comm recurse --leaf bottom --frame descend \
	--min-frames 511 --min-samples 200
check summary "$tmp/recurse700.err" truncated --min 200
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Recursions of the depth real programs reach (compilers: 200 to 400
# frames, interpreters more), then deeper than the unwinder's limit of 1024
# frames.
#  - 900 deep (main -> descend x901 -> bottom): every sample with the leaf
#    has the whole chain from the process's start, nothing truncated.
#  - 1400 deep: the samples keep at least 1023 frames nearest the leaf, and
#    the summary counts them as truncated.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record recurse900 -F 999 -o "$tmp/recurse900.folded" -- "$WORKLOADS/recurse" 2 900
expect_rc 0
descend=$(printf 'descend;%.0s' $(seq 901))
check stacks "$tmp/recurse900.folded" --comm recurse --leaf bottom \
	--expect "{START};main;${descend}bottom" --min-ratio 0.99 --min-samples 200
grep -q "truncated  *0 " "$tmp/recurse900.err" || fail "900 frames deep: samples counted as truncated"

record recurse1400 -F 999 -o "$tmp/recurse1400.folded" -- "$WORKLOADS/recurse" 2 1400
expect_rc 0
check deep "$tmp/recurse1400.folded" --comm recurse --leaf bottom --frame descend \
	--min-frames 1023 --min-samples 200
check summary "$tmp/recurse1400.err" truncated --min 200
finish

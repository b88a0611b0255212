#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A recursion 200 deep (main -> descend x201 -> bottom), deeper than the
# unwinder's frame limit: the samples keep at least 127 frames nearest the
# leaf, and the summary counts them as truncated.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record recurse -F 999 -o "$tmp/recurse.folded" -- "$WORKLOADS/recurse" 2 200
expect_rc 0
check deep "$tmp/recurse.folded" --comm recurse --leaf bottom --frame descend \
	--min-frames 127 --min-samples 200
check summary "$tmp/recurse.err" truncated --min 200
finish

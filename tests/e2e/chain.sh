#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: chain.sh VARIANT   (chain-pie, chain-nopie, chain-static, chain-static-pie)
#
# Profiles the chain workload (main -> f1 -> ... -> f8 -> leaf, no frame
# pointers) built as VARIANT: at least 99% of the samples in leaf must have
# exactly the whole chain, from _start through glibc's start code to leaf.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

variant=$1
chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'

record "$variant" -F 999 -o "$tmp/$variant.folded" -- "$WORKLOADS/$variant" 3
expect_rc 0
check stacks "$tmp/$variant.folded" --comm "$variant" --leaf leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 200
finish

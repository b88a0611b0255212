#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: chain.sh VARIANT   (chain-lld, chain-lld-static, chain-mold,
#                            chain-mold-static)
#
# tests/workloads/chain.c (main -> f1 -> ... -> f8 -> leaf, -O2 without frame
# pointers) built by clang and linked by lld or mold, as PIE or static
# (tests/programs/meson.build). Both linkers put the code segment at a file
# offset that is not a multiple of the page size. Checks:
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples in leaf have exactly the whole chain, from
#    _start through glibc's start code to leaf.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

variant=$1
case $variant in
*mold*) need_program "$variant" "clang or mold" ;;
*) need_program "$variant" "clang or ld.lld (package lld)" ;;
esac

profile "$variant" "$PROGRAMS/$variant" 2
check stats "$tmp/$variant.json" --min-walked 0.99
check stacks "$tmp/$variant.folded" --comm "$variant" --leaf leaf \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.99 --min-samples 200
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 200 short-lived children, each a fork+exec of the burn workload running
# for 20 ms of CPU: at least 90% of the children's samples are complete (they
# reach _start through glibc's start code, or through the dynamic loader's
# while it starts the program: a busy machine makes that a larger share) and
# symbolized (no [file+0x...] frame above the start code, which without
# libc6-dbg has one), or inside the exec that started them, past its point
# of no return: [exec], under burn's name.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record forker -F 999 -o "$tmp/forker.folded" -- "$WORKLOADS/forker" 200 20
expect_rc 0
check stacks "$tmp/forker.folded" --comm burn \
	--expect '(?:{START}|_start;_dl_start)(;[^;\[]+)*|\[exec\]' \
	--min-ratio 0.90 --min-samples 500
check stacks "$tmp/forker.folded" --comm burn --leaf burn_leaf \
	--expect '{START};main;burn_outer;burn_inner;burn_leaf' --min-ratio 0.95 --min-samples 500
finish

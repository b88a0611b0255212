#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A libc callback: sort_round calls qsort, whose merge sort calls compare in
# this program, which calls weigh. Frames cross into libc and back:
#   _start ... main;sort_round;qsort_r;msort_with_tmp...;compare;weigh
# (glibc 2.36: qsort tail-calls qsort_r, which inlines the first
# msort_with_tmp level; libc frames are named with libc6-dbg, else shown as
# [libc.so.6+0x...]).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

libc_unknown='\[libc\.so\.6\+0x[0-9a-f]+\]'
qsort_r="(?:qsort_r|__qsort_r|__GI___qsort_r|$libc_unknown)"
msort="(?:msort_with_tmp(?:\.part\.0)?|$libc_unknown)"
stack="{START};main;sort_round;$qsort_r(?:;$msort)+;compare;weigh"

record qsort -F 999 -o "$tmp/qsort.folded" -- "$WORKLOADS/qsort" 3
expect_rc 0
check stacks "$tmp/qsort.folded" --comm qsort --leaf weigh --expect "$stack" \
	--min-ratio 0.99 --min-samples 200
finish

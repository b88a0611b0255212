#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: musl.sh VARIANT   (musl, musl-static)
#
# The musl workload, built with musl-gcc as VARIANT: musl's code has no CFI
# (Debian's libc.so of musl has FDEs for 4 functions), so its rows come from
# its code (core/unwind/code_x64.c). At least 95% of the samples begin at
# _start, and the chain of the program is whole below musl's memcpy, below
# musl's sorting frames and the comparator they call, and below musl's
# allocator.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

variant=$1
[ -x "$WORKLOADS/$variant" ] || e2e_skip "$variant was not built (musl-gcc, of musl-tools, is not installed)"
# musl's start code: _start calls _start_c, which tail-calls
# __libc_start_main, which tail-calls libc_start_main_stage2 (static: named
# with a symbol table or debug file, else an offset in libc.so), then main.
start='_start(?:;_start_c)?(?:;__libc_start_main)?;[^;]+;main;work_round'
musl_frames='(?:;[^;]+)*'
# Debian's libc.so of musl is stripped to the names it exports: its malloc and
# free tail-call functions named by an offset in it.
musl_fn='\[libc\.so\+0x[0-9a-f]+\]'

record "$variant" -F 999 -o "$tmp/$variant.folded" -- "$WORKLOADS/$variant" 3
expect_rc 0
check roots "$tmp/$variant.folded" --comm "$variant" --root '_start' --min-ratio 0.95
check stacks "$tmp/$variant.folded" --comm "$variant" --leaf memcpy --through copy_phase \
	--expect "$start;copy_phase;memcpy" --min-ratio 0.95 --min-samples 20
check stacks "$tmp/$variant.folded" --comm "$variant" --leaf weigh \
	--expect "$start;sort_phase;(?:qsort|__qsort_r|qsort_r)$musl_frames;compare;weigh" \
	--min-ratio 0.95 --min-samples 50
check stacks "$tmp/$variant.folded" --comm "$variant" --through alloc_phase \
	--expect "$start;alloc_phase;(?:malloc|free|__libc_malloc|__libc_malloc_impl|__libc_free|$musl_fn)$musl_frames" \
	--min-ratio 0.95 --min-samples 50
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Samples inside execve. Past its point of no return the old program's
# stack is gone (its memory is freed there, its registers still saved):
# such a sample is written under the new program's name with one user
# frame, [exec], and its kernel stack, not as a failed walk. exec-a and
# exec-b are copies of the execer workload, each exec'ing the other;
# exec-a fills 256 MiB, exec-b nothing, so the exec into exec-b spends its
# time freeing exec-a's memory, under begin_new_exec in the kernel.
#  - the samples freeing the old memory are [exec] of exec-b, the new
#    program, in an execve system call;
#  - the summary counts them inside exec, and the others begin at the
#    process's root: _start, or a new program's [exec], not a failed walk
#    (98%: ld.so's lazy binding at each new program's start, in
#    _dl_runtime_resolve, is at times not walked to it, nor are the few
#    instructions of exec from create_elf_tables to start_thread).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

cp "$WORKLOADS/execer" "$tmp/exec-a"
cp "$WORKLOADS/execer" "$tmp/exec-b"
record exec -F 999 -o "$tmp/exec.folded" -- "$tmp/exec-a" 3 256 0 "$tmp/exec-b"
expect_rc 0
check exec "$tmp/exec.folded" --comm exec-b --old exec-a --min-samples 20
check summary "$tmp/exec.err" "inside exec" --min 20
check roots "$tmp/exec.folded" --root _start --root '\[exec\]' --min-ratio 0.98
finish

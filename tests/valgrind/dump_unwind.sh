#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dump-unwind under valgrind: text, --json, --summary and --pc on the
# fixtures and on libc, a separate debug file, and the error paths.
#
# usage: dump_unwind.sh FIXTURES_BIN LIBC
. "$(dirname "$0")/lib.sh"

bin=$1
libc=$2

vg 0 dump-unwind "$bin/chain-pie"
grep -q 'end' "$tmp/out" || fail "dump-unwind chain-pie printed no rows"
vg 0 dump-unwind --json "$bin/chain-static"
vg 0 dump-unwind "$bin/libdframe.so"
vg 0 dump-unwind --json "$bin/except"
vg 0 dump-unwind --debug-file "$bin/both-stripped.debug" "$bin/both-stripped"
vg 0 dump-unwind --no-debuginfo --summary "$bin/both"
vg 0 dump-unwind "$bin/chain-aarch64"
vg 0 dump-unwind --pc 0x1139 "$bin/chain-pie"
vg 0 dump-unwind --pc 0 --json "$bin/chain-pie"
vg 0 dump-unwind --summary --json "$libc"
vg 0 dump-unwind --pc 0x29d90 --json "$libc"
grep -q '"schema"' "$tmp/out" || fail "dump-unwind --pc --json on libc printed no JSON"
vg 0 dump-unwind "$libc"
# errors: missing file, not ELF, a debug file that does not match, bad --pc
vg 1 dump-unwind /nonexistent
vg 1 dump-unwind "$0"
vg 1 dump-unwind --debug-file "$bin/chain-pie" "$bin/both-stripped"
vg 64 dump-unwind --pc nonsense "$bin/chain-pie"
vg 64 dump-unwind
finish

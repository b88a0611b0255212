#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# shards under valgrind: FILE mode on fixtures and libc (tables and JSON,
# small shards, a cap that does not fit), -p on this shell, and errors.
#
# usage: shards.sh FIXTURES_BIN LIBC
. "$(dirname "$0")/lib.sh"

bin=$1
libc=$2

vg 0 shards "$bin/chain-pie"
vg 0 shards --json "$bin/chain-static" "$bin/libdframe.so"
vg 0 shards "$libc"
vg 0 shards --json --shard-rows 64 --max-shards 2 "$bin/chain-pie" "$libc"
vg 0 shards -p $$
vg 1 shards /nonexistent
vg 1 shards "$0"
vg 64 shards --shard-rows 0 "$bin/chain-pie"
vg 64 shards
finish

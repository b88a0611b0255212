#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's stripped programs, without .symtab and with no symbol for their
# own functions: sqlite3 (a recursive query), md5sum (2 GiB of a pipe) and
# as (a generated file of 300,000 instructions). Checked for each, against
# readelf:
#  - every frame of the program's file without a symbol is named by the
#    start of the function that holds it, [FILE+0xOFFSET] with the file
#    offset of the start of an FDE of its .eh_frame, so that one function's
#    samples add up;
#  - the stacks begin at _start, the entry point of the ELF header, which no
#    symbol of the file names (99%).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool readelf "binutils"
need_tool sqlite3 "Debian's sqlite3"
need_tool md5sum "coreutils"
need_tool as "binutils"

query="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000)
	SELECT sum(x * x % 7), count(DISTINCT x % 1000) FROM c;"
profile sqlite3 sqlite3 :memory: "$query"
check fde-starts "$tmp/sqlite3.folded" "$(command -v sqlite3)" --comm sqlite3
check roots "$tmp/sqlite3.folded" --comm sqlite3 --root _start --min-ratio 0.99

profile md5sum bash -c 'head -c 2G /dev/zero | md5sum'
check fde-starts "$tmp/md5sum.folded" "$(command -v md5sum)" --comm md5sum
check roots "$tmp/md5sum.folded" --comm md5sum --root _start --min-ratio 0.99

python3 -c '
import sys
for i in range(300000):
    print(f"\taddq ${i % 4096}, %rax\n\tmovq {8 * (i % 512)}(%rsp), %rbx")
' > "$tmp/big.s"
profile as as -o "$tmp/big.o" "$tmp/big.s"
check fde-starts "$tmp/as.folded" "$(readlink -f "$(command -v as)")" --comm as --min-frames 50
check roots "$tmp/as.folded" --comm as --root _start --min-ratio 0.99
finish

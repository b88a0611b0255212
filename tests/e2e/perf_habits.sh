#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record as perf users type it, and as a CI job runs it: -a -- COMMAND
# (every process while the command runs), -g and --call-graph dwarf|fp,
# -C CPU; -d ending a command exits 0 with the profile written; the
# command's stdout never lands in a profile written to stdout; -o names the
# format (cpu.prof is pprof), an unknown extension is a usage error.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# -a -- COMMAND: the run ends with the command, and the command is in it.
start=$(date +%s.%N)
record all-cmd -a -F 999 -o "$tmp/all.folded" -- "$WORKLOADS/chain-pie" 0.5
secs=$(python3 -c "import time; print(round(time.time() - $start, 1))")
expect_rc 0
python3 -c "import sys; sys.exit(not $secs < 20)" || fail "-a -- COMMAND ran $secs s"
check stacks "$tmp/all.folded" --comm chain-pie --leaf leaf --min-samples 100 \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.95
record all-exit3 -a --quiet -o "$tmp/all3.folded" -- sh -c 'exit 3'
expect_rc 3

# perf's spelling: -g and --call-graph dwarf are the default walk, fp is --fp-only.
record dwarf -g --call-graph dwarf -F 999 -o "$tmp/dwarf.folded" -- "$WORKLOADS/chain-pie" 0.3
expect_rc 0
check stacks "$tmp/dwarf.folded" --comm chain-pie --leaf leaf --min-samples 100 \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.95
record dwarf-size --call-graph dwarf,8192 --quiet -o "$tmp/ds.folded" -- "$WORKLOADS/chain-pie" 0.1
expect_rc 0
record fp --call-graph fp -F 999 -o "$tmp/fp.folded" -- "$WORKLOADS/chain-pie" 0.3
expect_rc 0
check summary "$tmp/fp.err" "with frame pointers" --min 100
record lbr --call-graph lbr -a -d 1
expect_rc 64

# -C: one CPU, alone (every process on it) and with a command.
record cpu0 -C 0 -d 0.5 --quiet -o "$tmp/cpu0.folded"
expect_rc 0
record cpu0-cmd -C 0 -F 999 -o "$tmp/cpu0-cmd.folded" -- taskset -c 0 "$WORKLOADS/chain-pie" 0.3
expect_rc 0
check summary "$tmp/cpu0-cmd.err" samples --min 100
record cpu-none -C 4095 -d 0.5 --quiet -o "$tmp/cpu-none.folded"
expect_rc 1
grep -q 'CPU 4095' "$tmp/cpu-none.err" || fail "-C 4095: the message does not name the CPU"
record cpu-bad -C 1-0 -d 0.5
expect_rc 64

# -d ends the command: exit 0, the profile written, the summary says so.
record duration -d 0.5 -F 999 -o "$tmp/duration.folded" -- "$WORKLOADS/chain-pie" 30
expect_rc 0
[ -s "$tmp/duration.folded" ] || fail "-d: no profile"
grep -q 'ended at -d' "$tmp/duration.err" || fail "-d: the summary does not say the run ended it"
# ... and a command that exits first keeps its status
record exits -d 30 --quiet -o "$tmp/exits.folded" -- sh -c "$WORKLOADS/chain-pie 0.2; exit 5"
expect_rc 5

# The profile on stdout, the command's stdout on stderr.
record mixed -F 999 -- sh -c "echo COMMAND-OUTPUT; $WORKLOADS/chain-pie 0.3"
expect_rc 0
grep -q COMMAND-OUTPUT "$tmp/mixed.out" && fail "the command's stdout is in the profile"
grep -q COMMAND-OUTPUT "$tmp/mixed.err" || fail "the command's stdout went missing"
check stacks "$tmp/mixed.out" --comm chain-pie --leaf leaf --min-samples 100 \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.95
# with -o the command keeps its stdout
record kept --quiet -o "$tmp/kept.folded" -- sh -c 'echo COMMAND-OUTPUT'
grep -q COMMAND-OUTPUT "$tmp/kept.out" || fail "-o FILE: the command lost its stdout"

# -o names the format.
record prof --quiet -F 999 -o "$tmp/cpu.prof" -- "$WORKLOADS/chain-pie" 0.2
expect_rc 0
[ "$(head -c 2 "$tmp/cpu.prof" | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
	fail "-o cpu.prof is not gzip pprof"
"$UNWPROF" report -i "$tmp/cpu.prof" --top 1 > /dev/null || fail "report cannot read cpu.prof"
record weird -o "$tmp/cpu.weird" -- true
expect_rc 64
[ -e "$tmp/cpu.weird" ] && fail "-o cpu.weird left a file"
finish

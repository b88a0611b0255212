#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The only -p target exits 1 s after sampling started, of a 6 s run.
# Injected: the exit (SIGTERM to the target).
# Expected: the run ends early and cleanly (nothing is left to sample), the
# summary says so, the output is valid and keeps the samples taken up to the
# exit, with complete stacks. Lost: nothing.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'

start_workload chain-pie 60
pid=$workload_pid
record_bg exit -p "$pid" -d 6 -F 999 -o "$tmp/exit.pb.gz"
wait_sampling "$(unwprof_pid)"
sleep 1
kill "$pid"
record_wait exit
expect_rc 0
grep -q 'every target exited' "$tmp/exit.err" || fail "the summary does not say the target exited"
secs=$(elapsed "$tmp/exit.err")
python3 -c "import sys; sys.exit(not float('${secs:-9}') < 4)" ||
	fail "the run went on for ${secs:-?} s though its only target exited at 1 s (-d 6)"
"$UNWPROF" report -i "$tmp/exit.pb.gz" --folded > "$tmp/exit.folded" 2> "$tmp/report.err" ||
	fail "unwprof report cannot read the profile: $(cat "$tmp/report.err")"
check stacks "$tmp/exit.folded" --comm chain-pie --leaf leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 300
finish

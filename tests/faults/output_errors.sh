#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Outputs that cannot be written: /dev/full, a missing directory, a
# read-only file system, for -o and --stats-json. Injected: the failing
# destination. Expected: exit 1, a message naming the file, no partial or
# temporary file; a destination that cannot be created fails before
# sampling starts (a 30 s run fails in seconds). Lost: the profile, said so.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

ro="$tmp/ro"
mkdir "$ro"
mount -t tmpfs -o ro tmpfs "$ro" || e2e_skip "cannot mount a read-only tmpfs"
# Unmounted even when the test fails: lib.sh's trap removes $tmp afterwards.
trap 'umount "$ro" 2> /dev/null; e2e_cleanup' EXIT

start_workload chain-pie 60
pid=$workload_pid
sleep 0.3

# name, then the options that fail
cases=(
	"missing|-o $tmp/missing/dir/out.folded|$tmp/missing/dir/out.folded"
	"readonly|-o $ro/out.pb.gz|$ro/out.pb.gz"
	"stats-missing|--stats-json $tmp/missing/stats.json|$tmp/missing/stats.json"
	"stats-readonly|--stats-json $ro/stats.json|$ro/stats.json"
)
for c in "${cases[@]}"; do
	IFS='|' read -r name opts file <<< "$c"
	start=$(date +%s.%N)
	# shellcheck disable=SC2086 # opts are words
	record "$name" -p "$pid" -d 30 $opts
	secs=$(python3 -c "import time; print(round(time.time() - $start, 1))")
	expect_rc 1
	grep -qF "$file" "$tmp/$name.err" || fail "$name: the message does not name $file"
	python3 -c "import sys; sys.exit(not $secs < 10)" ||
		fail "$name: failed after $secs s, not before sampling"
	[ -z "$(ls -A "$ro")" ] || fail "$name: files left in the read-only mount"
done
[ ! -e "$tmp/missing" ] || fail "the missing directory was created"

# /dev/full only fails on write: at the end, exit 1 and the file named.
for out in "-o /dev/full" "--stats-json /dev/full"; do
	# shellcheck disable=SC2086
	record full -p "$pid" -d 0.5 $out
	expect_rc 1
	grep -q '/dev/full' "$tmp/full.err" || fail "$out: the message does not name /dev/full"
done
# record's stdout is a file of lib.sh: this one is run by hand.
"$UNWPROF" record -p "$pid" -d 0.5 > /dev/full 2> "$tmp/stdout-full.err"
rc=$?
expect_rc 1
grep -q 'stdout' "$tmp/stdout-full.err" || fail "stdout on /dev/full: the message does not say stdout"

# Every command's stdout on /dev/full: exit 1 and one message, with its reason.
"$UNWPROF" record -F 99 -o "$tmp/p.pb.gz" -p "$pid" -d 0.3 2> /dev/null ||
	fail "record -o p.pb.gz failed"
for cmd in "dump-unwind $WORKLOADS/chain-pie" "dump-unwind --json $WORKLOADS/chain-pie" \
	"shards $WORKLOADS/chain-pie" "shards --json $WORKLOADS/chain-pie" \
	"report -i $tmp/p.pb.gz" "report --json -i $tmp/p.pb.gz" "report --folded -i $tmp/p.pb.gz"; do
	# shellcheck disable=SC2086 # cmd is words
	"$UNWPROF" $cmd > /dev/full 2> "$tmp/cmd-full.err"
	rc=$?
	expect_rc 1
	[ "$(wc -l < "$tmp/cmd-full.err")" -eq 1 ] || fail "$cmd: not one message: $(cat "$tmp/cmd-full.err")"
	grep -q 'stdout: No space left on device' "$tmp/cmd-full.err" ||
		fail "$cmd > /dev/full: the message does not say stdout and why: $(cat "$tmp/cmd-full.err")"
done

# Nothing left in the output directory: no temporary file.
leftover=$(find "$tmp" -maxdepth 1 -name '.*' ! -name . | head -n 3)
[ -z "$leftover" ] || fail "temporary files left behind: $leftover"
finish

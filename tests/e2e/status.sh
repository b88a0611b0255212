#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Exit statuses of record: a launched command's status is propagated, a
# command or pid that does not exist is a failure (1, with a message), a bad
# command line is a usage error (64). --quiet prints nothing on stderr. No
# BPF program outlives any run.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record exit3 --quiet -F 999 -o "$tmp/exit3.folded" -- "$WORKLOADS/chain-pie" 0.3 3
expect_rc 3
[ -s "$tmp/exit3.folded" ] || fail "no folded stacks in $tmp/exit3.folded"
if [ -s "$tmp/exit3.err" ]; then
	fail "--quiet: unwprof printed on stderr"
fi

record nocmd -- "$tmp/no-such-command"
expect_rc 1
grep -q 'no-such-command' "$tmp/nocmd.err" || fail "no message naming the missing command"

# A pid that is free: past the last one in use, and checked.
pid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e "/proc/$pid" ]; do
	pid=$((pid - 1))
done
record nopid -p "$pid" -d 1
expect_rc 1
grep -q "$pid" "$tmp/nopid.err" || fail "no message naming the missing pid $pid"

for args in "--no-such-option" "-p notapid -d 1" "-F notanumber -a -d 1" "-d 1"; do
	# shellcheck disable=SC2086
	record usage $args
	expect_rc 64
done
finish

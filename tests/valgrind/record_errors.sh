#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record's paths that need no BPF, under valgrind: usage errors, a pid that
# does not exist, an output file that cannot be created, a command that
# cannot run, and (as root) the privilege check run as an unprivileged user.
#
# usage: record_errors.sh
. "$(dirname "$0")/lib.sh"

vg 64 record
vg 64 record -p abc
vg 64 record -p 1,abc
vg 64 record -F 0 -p 1
vg 64 record -d -1 -a
vg 64 record -p 1 -a
vg 64 record --format=bogus -a
vg 1 record -p 999999999
vg 1 record -o /nonexistent/x.pb.gz -- true
vg 1 record -- /nonexistent-command
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	# as nobody: the privilege check must fail cleanly
	chmod 755 "$tmp"
	runs=$((runs + 1))
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"${VALGRIND[@]}" "$UNWPROF" record -d 1 -a >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -ne 99 ] || { fail "valgrind found errors in record as nobody"; cat "$tmp/err" >&2; }
	[ "$rc" -eq 1 ] || fail "record as nobody exited $rc, expected 1"
	grep -q 'root\|CAP_BPF' "$tmp/err" || fail "record as nobody does not say what it needs"
fi
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record run by an unprivileged user (nobody, no groups, no capabilities).
# Injected: the missing privileges. Expected: one message saying what is
# needed (root, or CAP_BPF and CAP_PERFMON), exit 1, and nothing created:
# no output file, no BPF object. Lost: nothing was started.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v setpriv > /dev/null || e2e_skip "setpriv is not installed (util-linux)"
out="$tmp/priv"
mkdir "$out"
chmod 777 "$out" "$tmp"
start_workload chain-pie 30
for target in "-p $workload_pid" "-a" "-- $WORKLOADS/chain-pie 1"; do
	# shellcheck disable=SC2086 # target is words
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$UNWPROF" record -d 1 -o "$out/out.folded" --stats-json "$out/stats.json" $target \
		> "$tmp/priv.out" 2> "$tmp/priv.err"
	rc=$?
	show_log "$tmp/priv.err"
	expect_rc 1
	[ "$(wc -l < "$tmp/priv.err")" -eq 1 ] || fail "$target: more than one message"
	grep -q 'root or CAP_BPF and CAP_PERFMON' "$tmp/priv.err" ||
		fail "$target: the message does not say what is needed"
	[ -z "$(ls -A "$out")" ] || fail "$target: files created: $(ls -A "$out")"
done
finish

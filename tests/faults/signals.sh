#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SIGINT, SIGTERM and SIGKILL at every stage of a run: while the unwind
# tables load (a target mapping libLLVM), while sampling, while a large
# system-wide pprof is written, and a second Ctrl-C. Injected: the signal.
# Expected: the profile is complete and valid (unwprof report and go tool
# pprof read it) or nothing is written; never a temporary file in the
# output directory; a second signal ends unwprof at once; after any exit,
# SIGKILL included, no BPF program, map or link of unwprof is left (e2e.py
# run checks). Lost: the samples after the signal, by design.
#
# signals.sh load: the stages before sampling (1, 5); signals.sh run: the
# others (2, 3, 4). Two tests, each short enough on a busy machine.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

out="$tmp/outdir"
mkdir "$out"

# The profile is absent, or valid for unwprof report and go tool pprof.
valid_or_absent() {
	local name=$1 file=$2

	if [ ! -e "$file" ]; then
		echo "$name: nothing written" >&2
		return
	fi
	# A signal just after the tables loaded, before the first sample, leaves a
	# profile of no samples, which report declines by design (go tool pprof
	# reads it, below); the summary must then say so.
	if ! "$UNWPROF" report -i "$file" --top 3 > "$tmp/$name.report" 2>&1; then
		if grep -q 'the profile has no samples' "$tmp/$name.report" &&
			grep -Eq '^ *samples +0$' "$tmp/$name.err"; then
			echo "$name: interrupted before the first sample, a profile of none" >&2
		else
			fail "$name: unwprof report cannot read $file: $(head -n 3 "$tmp/$name.report")"
		fi
	fi
	if command -v go > /dev/null; then
		HOME=$tmp GOCACHE=$tmp/go-cache go tool pprof -top "$file" > "$tmp/$name.pprof" 2>&1 ||
			fail "$name: go tool pprof cannot read $file: $(head -n 3 "$tmp/$name.pprof")"
	fi
}

no_temporary() {
	local left

	left=$(find "$out" -name '.*' ! -name . | head -n 3)
	[ -z "$left" ] || fail "$1: temporary files left in the output directory: $left"
}

# Sends SIG to the unwprof of record_bg DELAY seconds after it started, or
# after it started sampling with --sampling.
signal_after() {
	local sig=$1 delay=$2 pid

	pid=$(unwprof_pid) || { fail "unwprof did not start"; return; }
	[ "${3:-}" != --sampling ] || wait_sampling "$pid"
	sleep "$delay"
	kill -s "$sig" "$pid" 2> /dev/null
}

stage=${1:-}
case $stage in
load | run) ;;
*)
	echo "usage: $0 load|run" >&2
	exit 2
	;;
esac

start_workload chain-pie 120
small=$workload_pid
if [ "$stage" = load ]; then
	start_fault llvm_user 120
	big=$workload_pid
	wait_for "$tmp/llvm_user.bg.out" loaded || finish
fi

# 1. While loading the tables (libLLVM: about a second).
for sig in INT TERM; do
	[ "$stage" = load ] || break
	name=load-$sig
	record_bg "$name" -p "$big" -d 20 -o "$out/$name.pb.gz"
	signal_after "$sig" 0.2
	record_wait "$name"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "$name: exit status $rc"
	valid_or_absent "$name" "$out/$name.pb.gz"
	no_temporary "$name"
done

# 5. A second Ctrl-C while the tables load: unwprof dies of it at once.
if [ "$stage" = load ]; then
	name=twice
	record_bg "$name" -p "$big" -d 20 -o "$out/$name.pb.gz"
	pid=$(unwprof_pid) || fail "unwprof did not start"
	sleep 0.1
	kill -INT "$pid"
	sleep 0.05
	kill -INT "$pid" 2> /dev/null
	record_wait "$name"
	[ "$rc" -eq -2 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 0 ] || fail "$name: exit status $rc"
	valid_or_absent "$name" "$out/$name.pb.gz"
	no_temporary "$name"
	finish
fi

# 2. While sampling: the profile up to the signal.
for sig in INT TERM; do
	name=sample-$sig
	record_bg "$name" -p "$small" -F 999 -d 20 -o "$out/$name.pb.gz"
	signal_after "$sig" 1 --sampling
	record_wait "$name"
	expect_rc 0
	[ -s "$out/$name.pb.gz" ] || fail "$name: no profile after the signal"
	valid_or_absent "$name" "$out/$name.pb.gz"
	grep -q 'leaf' "$tmp/$name.report" || fail "$name: the chain is not in the profile"
	no_temporary "$name"
done

# 2b. SIGINT while sampling every process: a large profile, written whole.
name="big-INT"
record_bg "$name" -a -F 999 -d 20 -o "$out/$name.pb.gz"
signal_after INT 2 --sampling
record_wait "$name"
expect_rc 0
[ -s "$out/$name.pb.gz" ] || fail "$name: no profile after the signal"
valid_or_absent "$name" "$out/$name.pb.gz"
no_temporary "$name"

# 3. SIGKILL while sampling: nothing written, nothing left.
record_bg kill -p "$small" -d 20 -o "$out/kill.pb.gz"
signal_after KILL 1 --sampling
record_wait kill
[ "$rc" -eq -9 ] || fail "kill: exit status $rc, expected death by SIGKILL (-9)"
[ ! -e "$out/kill.pb.gz" ] || fail "kill: a profile was written"
no_temporary kill

# 4. While writing a large system-wide profile, and a second Ctrl-C: a
# SIGINT every 50 ms from the end of -d on; unwprof must die of the second
# one at once, whatever it was doing, or have finished.
name="write"
record_bg "$name" -a -F 999 -d 2 -o "$out/$name.pb.gz"
pid=$(unwprof_pid) || fail "unwprof did not start"
wait_sampling "$pid"
sleep 2
first=$(date +%s.%N)
gone=""
for _ in $(seq 100); do
	if ! kill -INT "$pid" 2> /dev/null; then
		gone=$(date +%s.%N)
		break
	fi
	sleep 0.05
done
record_wait "$name"
secs=$(python3 -c "print(round(${gone:-1e9} - $first, 2))")
echo "$name: exit status $rc, gone $secs s after the first SIGINT" >&2
[ "$rc" -eq 0 ] || [ "$rc" -eq -2 ] || fail "$name: exit status $rc"
python3 -c "import sys; sys.exit(not $secs < 2)" || fail "$name: still running $secs s after SIGINT"
valid_or_absent "$name" "$out/$name.pb.gz"
no_temporary "$name"

finish

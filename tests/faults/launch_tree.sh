#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A launched command's whole process tree ends with the run, and nothing of
# it outlives unwprof. The tree: the command, a background child, one that
# ignores SIGTERM, one in a session of its own, and an orphan (its parent
# exited) that ignores SIGTERM and SIGINT.
# Injected: the end of the run: -d, SIGINT or SIGTERM to unwprof alone (not
# to its process group), the command exiting first; a command that ignores
# SIGTERM.
# Expected: once unwprof has exited, no process of the tree is left (found
# by a marker in their environment, which unwprof's lacks), whatever ignored
# the signal having had SIGKILL a second later; the exit status is the
# command's, as unwprof-record(1) says: 0 when -d ended it, 130 at
# SIGINT, 137 (128+SIGKILL) when it ignored SIGTERM, its own when it exited
# first. Lost: nothing.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v setsid > /dev/null || e2e_skip "setsid is not installed (util-linux)"

mark="UNWPROF_LAUNCH_TREE=$$.$RANDOM"
# Four processes in the background, then the command goes on as $1.
tree=$tmp/tree.sh
cat > "$tree" << 'EOF'
sleep 300 &
(trap "" TERM; exec sleep 300) &
setsid sleep 300 &
(trap "" TERM INT; sleep 300 &)
eval "$1"
EOF

# The pids of the processes whose environment holds the marker.
tree_pids() {
	grep -lzxF -- "$mark" /proc/[0-9]*/environ 2> /dev/null | cut -d/ -f3
}

kill_tree() {
	local pid

	for pid in $(tree_pids); do
		kill -KILL "$pid" 2> /dev/null
	done
}
trap 'kill_tree; e2e_cleanup' EXIT

# Waits up to 30 s for the five processes of the tree.
wait_tree() {
	for _ in $(seq 300); do
		[ "$(tree_pids | wc -l)" -ge 5 ] && return 0
		sleep 0.1
	done
	fail "$1: the tree did not start: $(tree_pids | wc -l) of its 5 processes seen"
}

# After unwprof exited: nothing of the tree, and the exit status.
check_end() {
	local name=$1 want=$2 left

	left=$(tree_pids | paste -sd,)
	if [ -n "$left" ]; then
		fail "$name: processes of the tree outlived unwprof:"
		ps -o pid,ppid,pgid,sid,stat,args -p "$left" >&2
		kill_tree
	fi
	[ "$rc" -eq "$want" ] || fail "$name: exit status $rc, expected $want"
}

# 1. -d: SIGTERM to the tree, SIGKILL to what ignores it; unwprof ended it, so exit 0.
record_bg duration -d 2 -o "$tmp/duration.folded" -- env "$mark" sh "$tree" 'exec sleep 300'
wait_tree duration
record_wait duration
check_end duration 0

# 2. and 3. SIGINT, SIGTERM to unwprof alone; the command ignores SIGTERM in 3.
for sig in INT TERM; do
	name=signal-$sig
	cmd='exec sleep 300'
	want=130
	if [ "$sig" = TERM ]; then
		cmd='trap "" TERM; exec sleep 300'
		want=137
	fi
	record_bg "$name" -d 60 -o "$tmp/$name.folded" -- env "$mark" sh "$tree" "$cmd"
	pid=$(unwprof_pid) || fail "$name: unwprof did not start"
	wait_tree "$name"
	kill -s "$sig" "$pid"
	record_wait "$name"
	check_end "$name" "$want"
	grep -q 'still running' "$tmp/$name.err" && fail "$name: unwprof says a process survived"
done

# 4. The command exits first: what it left in the background ends with the run.
record exits -o "$tmp/exits.folded" -- env "$mark" sh "$tree" 'exit 3'
check_end exits 3
finish

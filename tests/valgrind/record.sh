#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record under valgrind, as root with BPF, on short workload runs: a
# launched command to pprof with --stats-json, an attached process to folded
# stacks with --tid, frame pointers only to SVG. The workloads run natively
# (valgrind does not follow the child); unwprof's user space runs under
# memcheck from loading the programs to writing the profile.
#
# valgrind 3.19 runs bpf() and perf_event_open, but its model of bpf() has
# gaps: it does not know BPF commands 25, 28 and 35 (it warns and runs them
# unchecked), does not mark the verifier log that BPF_PROG_LOAD writes, and
# checks union bpf_attr fields the command does not use. bpf.supp holds
# those reports, each anchored in libbpf. openat2 is unknown to it too
# (ENOSYS), so /proc is read through procfs.c's fallback walk.
#
# Needs root and BPF: skipped without them (exit 77), failed instead when
# UNWPROF_REQUIRE_BPF=1, as the end-to-end tests do.
#
# usage: record.sh WORKLOADS E2E_PY
. "$(dirname "$0")/lib.sh"

workloads=$1
e2e_py=$2

skip() {
	if [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
		echo "FAIL: $* (UNWPROF_REQUIRE_BPF=1, so this is not skipped)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root to load BPF programs and open perf events"
why=$(python3 "$e2e_py" bpf-probe 2>&1) || skip "$why"

# samples: the COUNT of the folded lines whose stack contains FRAME
samples_in() {
	awk -v f="$2" 'index($0, f) { n += $NF } END { print n + 0 }' "$1"
}

vg 0 record -F 499 -o "$tmp/burn.pb.gz" --stats-json "$tmp/stats.json" -- \
	"$workloads/burn" 300
grep -q '"samples"' "$tmp/stats.json" || fail "record --stats-json wrote no samples count"
"$UNWPROF" report -i "$tmp/burn.pb.gz" --folded >"$tmp/burn.folded" ||
	fail "report cannot read what record wrote under valgrind"
[ "$(samples_in "$tmp/burn.folded" burn_leaf)" -ge 5 ] ||
	fail "record under valgrind has fewer than 5 samples in burn_leaf"

"$workloads/burn" 60000 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# attach once it runs burn, not the shell that is about to exec it; loading
# under valgrind takes seconds, so burn runs until it is killed
for _ in $(seq 50); do
	[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$workloads/burn")" ] && break
	sleep 0.1
done
vg 0 record -F 499 -d 1 --tid -p "$pid" --format folded -o "$tmp/attach.folded"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "burn-$pid/" "$tmp/attach.folded" ||
	fail "record -p under valgrind has no burn-$pid/TID line"

vg 0 record -F 199 --fp-only --quiet -o "$tmp/fp.svg" -- "$workloads/chain-pie"
grep -q '<svg' "$tmp/fp.svg" || fail "record --format svg under valgrind wrote no SVG"
finish

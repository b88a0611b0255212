#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record --off-cpu on tests/workloads/waits, whose threads time their own
# waits (nanosleep, a pipe, a mutex, fsync) and one of which only computes:
#  - every block walked (--off-cpu-min 0, no cap on walks): each thread's time off the CPU,
#    and the time of the stacks through each of its waiting functions,
#    agree with the thread's own measure within 2% (or 2 ms): between its
#    time blocked and that with the time it waited for a CPU, as the
#    kernel's scheduler statistics give it (offcpu.py's measured()), its walked
#    stacks run from its root through its waiting function (99%), and
#    every block is accounted for in --stats-json (offcpu.py);
#  - the default threshold, to pprof: `go tool pprof -sample_index=off-cpu`
#    reads it, the fsync()s are in state D and the sleeps in S, and `report
#    --sample-type off-cpu` gives the threads' times again;
#  - pywaits.py on Debian's python3.11: its threads' time under the Python
#    frames of their waiting functions (time.sleep, queue.get, a Lock)
#    agrees with their own measure, their thread function's frame in place;
#  - bpftrace (tests/e2e/offcpu.bt, bcc offcputime's method: sched_switch and
#    frame pointers) runs beside the first run: each thread's time agrees
#    with its (between the blocks it saw end and those it did not), and unwprof's stacks are deeper than frame pointers give;
#  - without --off-cpu nothing of it is there.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

offcpu="python3 $e2e_dir/offcpu.py"
command -v go > /dev/null || e2e_skip "go is not installed (golang-go; ./setup.sh installs it)"
command -v bpftrace > /dev/null || e2e_skip "bpftrace is not installed (./setup.sh installs it)"
[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
	e2e_skip "tracefs is not mounted, where bpftrace reads the tracepoints (./setup.sh mounts it)"

# bpftrace, the reference, from before the run to after it.
bpftrace "$e2e_dir/offcpu.bt" > "$tmp/bpftrace.out" 2> "$tmp/bpftrace.err" &
bt=$!
background+=("$bt")
for _ in $(seq 100); do
	grep -q "Attaching" "$tmp/bpftrace.out" && break
	sleep 0.1
done
grep -q "Attaching" "$tmp/bpftrace.out" || fail "bpftrace did not start: $(head -c 300 "$tmp/bpftrace.err")"

record all --off-cpu --off-cpu-min 0 --off-cpu-walks 1000000 --tid -F 99 --stats-json "$tmp/all.json" \
	-o "$tmp/all.folded" -- "$WORKLOADS/waits" 2 "$tmp"
expect_rc 0
$offcpu waits "$tmp/all.folded" "$tmp/all.err" || fails=$((fails + 1))
$offcpu accounts "$tmp/all.json" || fails=$((fails + 1))
kill -INT "$bt"
wait "$bt"
$offcpu bpftrace "$tmp/all.folded" "$tmp/all.err" "$tmp/bpftrace.out" || fails=$((fails + 1))
grep -q "off-CPU blocks" "$tmp/all.err" || fail "the summary has no off-CPU blocks"

record pprof --off-cpu -F 99 -o "$tmp/waits.pb.gz" -- "$WORKLOADS/waits" 2 "$tmp"
expect_rc 0
go tool pprof -traces -sample_index=off-cpu "$tmp/waits.pb.gz" > "$tmp/traces" 2>&1 ||
	fail "go tool pprof -sample_index=off-cpu: $(head -c 300 "$tmp/traces")"
$offcpu states "$tmp/traces" || fails=$((fails + 1))
"$UNWPROF" report -i "$tmp/waits.pb.gz" --sample-type off-cpu --folded --with-tid \
	> "$tmp/report.folded" 2> "$tmp/report.err" || fail "report --sample-type off-cpu failed"
$offcpu waits "$tmp/report.folded" "$tmp/pprof.err" --threads-only || fails=$((fails + 1))

python=/usr/bin/python3.11
[ -x "$python" ] || e2e_skip "$python is not installed (package python3.11; ./setup.sh installs it)"
record py --off-cpu --off-cpu-min 0 --off-cpu-walks 1000000 --tid -F 99 -o "$tmp/py.folded" \
	-- "$python" "$e2e_dir/pywaits.py" 2
expect_rc 0
$offcpu python "$tmp/py.folded" "$tmp/py.err" || fails=$((fails + 1))

record none -F 99 -o "$tmp/none.folded" --stats-json "$tmp/none.json" -- "$WORKLOADS/waits" 0.5
expect_rc 0
grep -q '\[off-cpu\]' "$tmp/none.folded" && fail "off-CPU stacks without --off-cpu"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["off_cpu"] is not None)' \
	"$tmp/none.json" || fail "--stats-json has off_cpu without --off-cpu"
finish

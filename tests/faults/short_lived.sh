#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A storm of short-lived processes under -a: two forkers exec a process
# that exits at once, as fast as the machine allows, during a 7 s and a
# 21 s run. Injected: thousands of processes to build tables for, and their
# events. Expected: the run ends on time, what had to be dropped is counted
# (the parts of the summary add up), and memory stays bounded: the peak RSS
# of unwprof (/usr/bin/time -v) and the memory of its BPF maps (memlock of
# the maps it holds) do not grow with the length of the run. Lost: counted.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=storm_lib.sh
source "$(dirname "$0")/storm_lib.sh"

[ -x /usr/bin/time ] || e2e_skip "/usr/bin/time is not installed (Debian package time)"


declare -A rss mem shards procs forks rows
for secs in 7 21; do
	name=storm-$secs
	touch "$tmp/run-a" "$tmp/run-b"
	storm "$tmp/run-a" "$WORKLOADS/forker" &
	storm_a=$!
	storm "$tmp/run-b" "$WORKLOADS/forker" &
	storm_b=$!
	background+=("$storm_a" "$storm_b")
	echo "\$ unwprof record -a -F 999 -d $secs (under /usr/bin/time -v)" >&2
	/usr/bin/time -v -o "$tmp/$name.time" "$UNWPROF" record -a -F 999 -d "$secs" \
		-o "$tmp/$name.pb.gz" --stats-json "$tmp/$name.json" 2> "$tmp/$name.err" &
	time_pid=$!
	sleep $((secs / 2))
	pid=$(pgrep -P "$time_pid" -x unwprof)
	shards[$secs]=$(map_memory "${pid:-0}" unw_shard)
	procs[$secs]=$(map_memory "${pid:-0}" procs)
	mem[$secs]=$((shards[$secs] + $(map_memory "${pid:-0}" -unw_shard)))
	wait "$time_pid"
	rc=$?
	rm -f "$tmp/run-a" "$tmp/run-b"
	wait "$storm_a" "$storm_b"
	show_log "$tmp/$name.err"
	expect_rc 0
	took=$(elapsed "$tmp/$name.err")
	python3 -c "import sys; sys.exit(not ${took:-0} <= $secs + 1)" ||
		fail "$name: recorded ${took:-?} s, not $secs s"
	forks[$secs]=$(($(cat "$tmp/run-a.count") + $(cat "$tmp/run-b.count")))
	rss[$secs]=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/$name.time")
	rows[$secs]=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['rows_loaded'])" \
		"$tmp/$name.json" 2> /dev/null || echo 0)
	echo "$name: ${forks[$secs]} processes, peak RSS ${rss[$secs]:-?} KiB," \
		"BPF maps $((${mem[$secs]} / 1024)) KiB, $((${shards[$secs]} / 1024)) KiB of them shards," \
		"${rows[$secs]} rows of tables loaded" >&2
	# Samples still on their way when the last drain ran: at most 1%.
	python3 "$CHECK_STATS" "$tmp/$name.json" --summary "$tmp/$name.err" \
		--max-not-drained "$(python3 -c "import json, sys; \
print(max(50, json.load(open(sys.argv[1]))['samples'] // 100))" "$tmp/$name.json")" ||
		fail "$name: the statistics do not add up or do not match the summary"
	# What record reports of its memory is what was measured from outside.
	python3 - "$tmp/$name.json" "${rss[$secs]:-0}" "${mem[$secs]}" << 'PY' ||
import json, sys
s = json.load(open(sys.argv[1]))
rss, maps = int(sys.argv[2]) * 1024, int(sys.argv[3])
print(f"record's own report: peak RSS {s['peak_rss_bytes']} B, BPF maps {s['bpf_map_bytes']} B",
      file=sys.stderr)
# Measured halfway: shards added later (a new table) only add to what record reports; the
# hash maps that grow as they fill (Linux 6.1+) it reads at its drains, not at that moment.
sys.exit(not (abs(s["peak_rss_bytes"] - rss) <= rss // 20 and
              maps * 0.9 <= s["bpf_map_bytes"] <= maps + 16 * 2**20))
PY
		fail "$name: the memory record reports differs from what was measured"
done
# Thousands of them, at the machine's pace: 4800 to 7200 here, fewer when it is busy.
[ "${forks[21]}" -ge 3000 ] || fail "only ${forks[21]} short-lived processes in 21 s"
[ "${mem[7]}" -gt 0 ] || fail "the memory of the BPF maps could not be read"
# The other maps hold what is on its way between drains (stacks, counts,
# processes: hash maps that grow as they fill), which follows what the machine
# runs at the moment, not the length of the run: 14.7 MiB one run, 12 the next.
# Of them, the entries of the processes: those that exited are deleted, even
# the ones written as they exited (0.4 MiB at any moment here; 9 MiB after
# 20 s when those stayed).
[ "${procs[21]}" -le $((procs[7] + procs[7] / 2 + 1048576)) ] ||
	fail "the entries of exited processes stay: ${procs[7]} B in 7 s, ${procs[21]} B in 21 s"
others7=$((mem[7] - shards[7])) others21=$((mem[21] - shards[21]))
[ "$others21" -le $((others7 + others7 / 4)) ] ||
	fail "BPF map memory other than shards grew with the run: $others7 B in 7 s, $others21 B in 21 s"
# Memory follows the distinct tables, which the storm does not add to; under
# -a the programs the rest of the machine starts meanwhile do (another test's
# compiler: 2 MiB of shards in one run, 10 in the next). What the longer run
# loaded more is allowed for: 4 bytes a row in the shards, 64 in unwprof's own
# memory (the files read to build and name them).
more_rows=$((rows[21] > rows[7] ? rows[21] - rows[7] : 0))
[ "${shards[21]}" -le $((shards[7] + shards[7] / 10 + 2 * 1048576 + 4 * more_rows)) ] ||
	fail "BPF map memory of shards grew with the run: ${shards[7]} B in 7 s, ${shards[21]} B in 21 s" \
		"(${rows[7]} and ${rows[21]} rows loaded)"
# Three times the processes, not three times the memory: 25% and 8 MiB of
# margin, for the profile itself (a sample per process and stack). Not under
# a sanitizer: ASan keeps up to 256 MiB of freed memory in quarantine, so its
# RSS follows the allocations made, not the memory in use.
if [ "${UNWPROF_SANITIZE:-none}" = none ]; then
	[ "${rss[21]:-0}" -le $((${rss[7]:-0} * 5 / 4 + 8192 + 64 * more_rows / 1024)) ] ||
		fail "peak RSS grew with the run: ${rss[7]} KiB in 7 s, ${rss[21]} KiB in 21 s"
else
	echo "peak RSS not compared: built with -Db_sanitize=$UNWPROF_SANITIZE" >&2
fi
finish

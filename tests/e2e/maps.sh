#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The BPF maps of a recording of one process, against the kernel's account
# of each (bpftool: its flags, size and memlock, read while it runs). The
# hash maps sized for the worst case (the stacks of 999 Hz, the processes)
# take memory as they fill on Linux 6.1 and later, where perf_event programs
# may use such maps (BPF_F_NO_PREALLOC); before, and with the test hook
# UNWPROF_BPF_PREALLOC=1 on any kernel, they are preallocated. Either way the
# chain is walked and nothing is lost; growing, the maps hold less than their
# size, and the run takes less memory than preallocated, at most 8 MiB at
# the default rate.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
need_test_hooks UNWPROF_BPF_PREALLOC

check_stats=$e2e_dir/../stats/check_stats.py
start_workload chain-pie 60

# "NAME FLAGS MAX_ENTRIES VALUE_BYTES MEMLOCK" of each map process PID holds.
maps_of() {
	python3 - "$1" << 'PY'
import json, os, subprocess, sys
pid = sys.argv[1]
ids = set()
for fd in os.listdir(f"/proc/{pid}/fdinfo"):
    try:
        fields = dict(l.split(":", 1) for l in open(f"/proc/{pid}/fdinfo/{fd}") if ":" in l)
    except OSError:
        continue
    if "map_id" in fields:
        ids.add(int(fields["map_id"]))
for m in json.loads(subprocess.run(["bpftool", "-j", "map", "show"], capture_output=True,
                                   text=True).stdout or "[]"):
    if m["id"] in ids and m.get("name"):
        print(m["name"], m["flags"], m["max_entries"], m["bytes_value"], m["bytes_memlock"])
PY
}

# run NAME PREALLOC: records the workload at the default rate, the maps read
# half a second into the sampling, then ended by SIGTERM.
run() {
	local pid i

	UNWPROF_BPF_PREALLOC=$2 "$UNWPROF" record -v -p "$workload_pid" -o "$tmp/$1.folded" \
		--stats-json "$tmp/$1.json" 2> "$tmp/$1.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q "perf events attached" "$tmp/$1.err" && break
		sleep 0.1
	done
	sleep 0.5
	maps_of "$pid" > "$tmp/$1.maps"
	kill -TERM "$pid"
	wait "$pid" || fail "$1: unwprof record exited $?"
	show_log "$tmp/$1.err"
	python3 "$check_stats" "$tmp/$1.json" --min-walked 95 || fail "$1: --stats-json"
	grep -q "^ustacks " "$tmp/$1.maps" || fail "$1: no map of user stacks read from the kernel"
}

# Linux 6.1 or later: hash maps that grow, unless the hook says no.
IFS=. read -r major minor _ <<< "$(uname -r)"
grows=0
[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 1 ]; } && grows=1

run grow 0
run prealloc 1
for name in counts ustacks ustacks_deep procs; do
	read -r _ flags _ _ _ < <(grep "^$name " "$tmp/grow.maps")
	[ $((flags & 1)) -eq "$grows" ] ||
		fail "$name: flags $flags on $(uname -r), expected BPF_F_NO_PREALLOC $grows"
	read -r _ flags entries value memlock < <(grep "^$name " "$tmp/prealloc.maps")
	[ $((flags & 1)) -eq 0 ] || fail "$name: flags $flags with UNWPROF_BPF_PREALLOC=1"
	[ "$memlock" -ge $((entries * value)) ] ||
		fail "$name preallocated: $memlock bytes, less than $entries entries of $value"
done
if [ "$grows" = 1 ]; then
	# The chain repeats a few stacks: the map of them holds a few entries of its size.
	read -r _ _ entries value memlock < <(grep "^ustacks " "$tmp/grow.maps")
	[ "$memlock" -lt $((entries * value / 4)) ] ||
		fail "ustacks growing: $memlock bytes, as much as a quarter of $entries entries of $value"
	python3 - "$tmp/grow.json" "$tmp/prealloc.json" << 'PY' || fail "map memory"
import json, sys
grow, pre = (json.load(open(p))["bpf_map_bytes"] for p in sys.argv[1:])
print(f"BPF map memory: {grow / 2**20:.1f} MiB growing, {pre / 2**20:.1f} MiB preallocated",
      file=sys.stderr)
ok = grow < pre and grow <= 8 * 2**20
if not ok:
    print(f"FAIL: growing maps take {grow} bytes: not less than {pre} and 8 MiB", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
fi
finish

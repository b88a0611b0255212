#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: hostile.sh fifo | link | sparse | owner | replaced | forged | system
#
# A file planted where unwprof looks for the names of JIT code
# (tests/workloads/jit.c, attached with -p; its map's lines give the
# addresses of its code, and the planted files name them planted_*):
#  fifo      /tmp/perf-PID.map is a FIFO no one writes: an open would block;
#  link      a symbolic link to a file only root may read;
#  sparse    a sparse file of 2 GiB, the planted lines first;
#  owner     a map owned by nobody, where the process is root's;
#  replaced  the map replaced, over and over while the run reads it, by each
#            of those (rename(2), so that there is always a file there);
#  forged    the jitdump the process maps, its header rewritten to name
#            another process and its names planted_*;
#  system    -a while a container (in_container.sh) has a FIFO at its
#            /tmp/perf-1.map and a workload of the host names its code as
#            usual.
# Each: the run ends on time (its -d and a few seconds), nothing is named
# from the file (no planted_*, no jit_framed: the workload's own names are
# gone with its map) while the workload's code is sampled, one warning names
# the file and the reason, and the reason is counted in --stats-json and
# shown in the summary. For system, the host's workload is named and walked
# as without the container.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || e2e_skip "the generated code of the jit workload is x86_64"
kind=$1
duration=2
# startup (tables of the process) and the end (symbols, output) take about a second each
slack=10

# The jit workload in the background for 30 s, its pid in $pid; ARGS after the time.
start_jit() {
	local out=$tmp/jit-$RANDOM.out

	"$WORKLOADS/jit" 30 "$@" > "$out" 2>&1 &
	pid=$!
	background+=("$pid")
	for _ in $(seq 50); do grep -q '^ready' "$out" && return 0; sleep 0.1; done
	fail "the jit workload did not start: $(cat "$out")"
	finish
}

# The workload's map, its names planted_*, into $1.
planted_map() {
	sed 's/ jit_\([a-z]*\)$/ planted_\1/' "$map" > "$1"
	grep -q planted_framed "$1" || fail "no planted line in $1"
}

# record NAME ARGS... with --stats-json, timed: it must end within -d and the slack.
timed_record() {
	local name=$1 t0 t1

	shift
	t0=$(date +%s.%N)
	record "$name" -F 999 -d "$duration" -o "$tmp/$name.folded" \
		--stats-json "$tmp/$name.json" "$@"
	t1=$(date +%s.%N)
	expect_rc 0
	python3 -c 'import sys; t = float(sys.argv[2]) - float(sys.argv[1])
print(f"the run took {t:.1f} s", file=sys.stderr)
sys.exit(t > float(sys.argv[3]))' "$t0" "$t1" "$((duration + slack))" ||
		fail "the run did not end within -d $duration and $slack s"
}

# The checks of a refusal of FILE of process PID for REASON (its --stats-json key's end) in
# run NAME, the process's comm COMM, its frames below run_framed ROOT (default all of them).
refused() {
	local name=$1 file="$2 (process $3)" reason=$4 comm=${5:-jit} root=${6:-'{START};main;'} n

	# nothing named from the file, while its code was sampled
	check stacks "$tmp/$name.folded" --comm "$comm" --through run_framed \
		--expect "${root}run_framed;\[anon\+0x[0-9a-f]+\]" --min-ratio 0.95 \
		--min-samples 100 --never 'planted_|jit_framed|jit_bare'
	n=$(grep -cF "$file" "$tmp/$name.err")
	[ "$n" -eq 1 ] || fail "$n warnings name $file, expected one"
	grep -F "$file" "$tmp/$name.err" | grep -q ': not read: ' ||
		fail "the warning does not say that $file was not read"
	python3 - "$tmp/$name.json" "$reason" << 'PY' || fail "the refusal of $file was not counted"
import json, sys
s = json.load(open(sys.argv[1]))
counts = {k: v for k, v in s.items() if k.startswith("files_refused_")}
print(f"refused: {counts}", file=sys.stderr)
want = sys.argv[2]
sys.exit(not (sum(counts.values()) >= 1 if want == "any" else counts["files_refused_" + want] >= 1))
PY
	python3 "$e2e_dir/../stats/check_stats.py" "$tmp/$name.json" --summary "$tmp/$name.err" ||
		fail "$name: --stats-json and the summary disagree"
}

case $kind in
fifo | link | sparse | owner | replaced)
	start_jit
	map=/tmp/perf-$pid.map
	cp "$map" "$tmp/map"
	map=$tmp/map
	planted=/tmp/perf-$pid.map
	trap 'rm -f "$planted" "$planted".new*; e2e_cleanup' EXIT
	;;
esac

case $kind in
fifo)
	rm -f "$planted"
	mkfifo "$planted"
	timed_record fifo -p "$pid"
	refused fifo "$planted" "$pid" not_regular
	;;
link)
	# only root may read it, and the process is root's: only the link gives it away
	planted_map "$tmp/secret"
	chmod 600 "$tmp/secret"
	ln -sfn "$tmp/secret" "$planted"
	timed_record link -p "$pid"
	refused link "$planted" "$pid" link
	;;
sparse)
	planted_map "$planted"
	truncate -s 2G "$planted"
	timed_record sparse -p "$pid"
	refused sparse "$planted" "$pid" too_large
	;;
owner)
	planted_map "$planted"
	chown nobody "$planted"
	timed_record owner -p "$pid"
	refused owner "$planted" "$pid" owner
	;;
replaced)
	planted_map "$tmp/secret"
	chmod 600 "$tmp/secret"
	planted_map "$tmp/nobody.map"
	chown nobody "$tmp/nobody.map"
	# each version put in place whole, by rename, as fast as it can be
	(
		while :; do
			ln -sfn "$tmp/secret" "$planted.new1" && mv -fT "$planted.new1" "$planted"
			mkfifo "$planted.new2" && mv -fT "$planted.new2" "$planted"
			cp -p "$tmp/nobody.map" "$planted.new3" && mv -fT "$planted.new3" "$planted"
		done
	) &
	background+=("$!")
	timed_record replaced -p "$pid"
	refused replaced "$planted" "$pid" any
	;;
forged)
	mkdir "$tmp/dumps"
	start_jit "$tmp/dumps"
	dump=$tmp/dumps/jit-$pid.dump
	{ [ -s "$dump" ] && [ ! -e "/tmp/perf-$pid.map" ]; } || fail "the workload wrote no jitdump alone"
	# in place (the mapped file), as long as it was: another pid, names planted_*
	python3 - "$dump" "$((pid + 1))" << 'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    d = bytearray(f.read())
    d[20:24] = struct.pack("<I", int(sys.argv[2]))
    d = d.replace(b"jit_framed\0", b"planted_fr\0").replace(b"jit_bare\0", b"planted_\0")
    f.seek(0)
    f.write(d)
PY
	timed_record forged -p "$pid"
	refused forged "$dump" "$pid" forged
	;;
system)
	croot=$tmp/croot
	container_root "$croot"
	cp "$WORKLOADS/jit" "$croot/jitc"
	"$in_container" "$croot" /jitc 30 > "$tmp/jitc.out" 2>&1 &
	background+=("$!")
	for _ in $(seq 50); do [ -s "$croot/tmp/perf-1.map" ] && break; sleep 0.1; done
	[ -s "$croot/tmp/perf-1.map" ] || fail "the container's workload wrote no map"
	rm -f "$croot/tmp/perf-1.map"
	mkfifo "$croot/tmp/perf-1.map"
	cpid=$(container_pid jitc) || fail "no pid 1 jitc"
	start_jit
	trap 'rm -f "/tmp/perf-$pid.map"; e2e_cleanup' EXIT
	timed_record system -a
	# the host's workload: named from its own map (-a walks a process with frame pointers
	# until its tables are loaded: its first samples lack main, alone as here)
	check stacks "$tmp/system.folded" --comm jit --through run_framed \
		--expect '(.*;)?run_framed;jit_framed' --min-ratio 0.95 --min-samples 100
	refused system /tmp/perf-1.map "$cpid" not_regular jitc '(.*;)?' 
	;;
*)
	echo "usage: $0 fifo | link | sparse | owner | replaced | forged | system" >&2
	exit 64
	;;
esac
finish

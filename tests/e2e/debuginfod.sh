#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debug files from debuginfod: the inline workload stripped of its symbols
# and DWARF, its debug file served by a real debuginfod (Debian's) on a
# loopback port from a directory of this test. With DEBUGINFOD_URLS naming
# it, the profile's leaves in the stripped file are named as addr2line names
# them in the file unstripped (functions, inlined ones, lines), and its stacks
# are main;run;checksum;mix_word; without it they are not. The client's cache
# then serves the file with the server stopped. A server stopped, or one that
# takes the connection and never answers, delays the end of the run by the
# bound of unwprof-record(1) (2 s) at most, and one warning says so.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v debuginfod > /dev/null && command -v debuginfod-find > /dev/null ||
	e2e_skip "debuginfod is not installed (Debian: debuginfod)"
command -v go > /dev/null || e2e_skip "go is not installed: the profiles are read by go tool pprof"

inlined='{START};main;run;checksum_\[i\];mix_word_\[i\](;rotate_\[i\])?'
stripped=$tmp/inline
mkdir "$tmp/served"
objcopy --only-keep-debug "$WORKLOADS/inline" "$tmp/served/inline.debug"
strip --strip-all -o "$stripped" "$WORKLOADS/inline"
build_id=$(readelf -n "$stripped" | awk '/Build ID:/ { print $3 }')
[ -n "$build_id" ] || fail "the inline workload has no build ID"

# A run of the stripped workload: record NAME with DEBUGINFOD_URLS=$1, its
# wall time in ms in $ms. The cache is the test's own, $cache.
run() {
	local name=$1 urls=$2 t0

	shift 2
	t0=$(date +%s%N)
	DEBUGINFOD_URLS=$urls DEBUGINFOD_CACHE_PATH=$cache record "$name" -v -F 999 \
		-o "$tmp/$name.pb.gz" --stats-json "$tmp/$name.json" "$@" -- "$stripped" 1
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_rc 0
}

# debuginfod's counts in NAME's --stats-json: "fetched=F not_found=N failed=X no_answer=A".
fetches() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["debuginfod"]
print(" ".join(f"{k}={d[k]}" for k in ("fetched", "not_found", "failed", "no_answer")))
' "$tmp/$1.json"
}

# The warning of the end of the run about debug files not fetched: exactly N of it.
warnings() {
	local n

	n=$(grep -c 'debug files not fetched' "$tmp/$1.err")
	[ "$n" -eq "$2" ] || fail "$1: $n warnings about debug files not fetched, expected $2"
}

# The time the end of the run waited for debuginfod (-v), in ms.
waited() {
	sed -n 's/^unwprof: the debug files fetched: \([0-9]*\) ms$/\1/p' "$tmp/$1.err"
}

# Names come from the debug file only: without a server, they are not the source's.
cache=$tmp/cache-none
run none ""
python3 "$e2e_dir/e2e.py" addr2line "$tmp/none.pb.gz" "$stripped" "$WORKLOADS/inline" \
	2> /dev/null && fail "the stripped workload was named without its debug file"
baseline=$ms

# The server: debuginfod scanning the directory of the debug file, on a free port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
debuginfod -F "$tmp/served" -p "$port" -d "$tmp/debuginfod.sqlite" > "$tmp/server.log" 2>&1 &
server=$!
background+=("$server")
ready=0
# a cache per try: the client remembers a miss (before the first scan) for 10 minutes
for i in $(seq 150); do
	if DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$tmp/cache-probe-$i \
		debuginfod-find debuginfo "$build_id" > /dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.2
done
if [ "$ready" != 1 ]; then
	tail -20 "$tmp/server.log" >&2
	fail "debuginfod does not serve $build_id after 30 s"
	finish
fi

# Fetched: the leaves named as addr2line names them in the file unstripped.
cache=$tmp/cache
run fetched "$url"
check addr2line "$tmp/fetched.pb.gz" "$stripped" "$WORKLOADS/inline" --min-leaves 3
"$UNWPROF" report -i "$tmp/fetched.pb.gz" --folded > "$tmp/fetched.folded" ||
	fail "report --folded failed"
check stacks "$tmp/fetched.folded" --comm inline --leaf 'mix_word_[i]' --expect "$inlined" \
	--min-ratio 0.99 --min-samples 200 --inlined
counts=$(fetches fetched)
echo "fetched: $counts" >&2
[[ $counts == "fetched="[1-9]*" failed=0 no_answer=0" ]] ||
	fail "fetched: debuginfod's counts are $counts"
[ -s "$cache/$build_id/debuginfo" ] || fail "the debug file is not in the client's cache"
warnings fetched 0

# The server stopped: the client's cache has the file; a new cache asks a
# server that is not there, and the run says so once, on time.
kill "$server"
wait "$server" 2> /dev/null
run cached "$url"
check addr2line "$tmp/cached.pb.gz" "$stripped" "$WORKLOADS/inline" --min-leaves 3

cache=$tmp/cache-stopped
run stopped "$url"
counts=$(fetches stopped)
echo "server stopped: $counts, $ms ms against $baseline ms without a server" >&2
[[ $counts == "fetched=0 "*"failed="[1-9]*" no_answer=0" ]] ||
	fail "server stopped: debuginfod's counts are $counts"
warnings stopped 1
[ "$ms" -le $((baseline + 1500)) ] ||
	fail "server stopped: the run took $ms ms, $baseline ms without a server"

# A server that never answers: the end of the run waits 2 s for it, no more.
python3 "$e2e_dir/silent_server.py" "$tmp/silent.port" &
background+=("$!")
for _ in $(seq 100); do
	[ -s "$tmp/silent.port" ] && break
	sleep 0.1
done
cache=$tmp/cache-silent
run silent "http://127.0.0.1:$(cat "$tmp/silent.port")"
counts=$(fetches silent)
wait_ms=$(waited silent)
echo "server silent: $counts, waited $wait_ms ms, $ms ms against $baseline ms" >&2
[[ $counts == "fetched=0 "*"no_answer="[1-9]* ]] ||
	fail "server silent: debuginfod's counts are $counts"
warnings silent 1
[ -n "$wait_ms" ] && [ "$wait_ms" -ge 1900 ] && [ "$wait_ms" -le 2200 ] ||
	fail "server silent: the end of the run waited ${wait_ms:-?} ms for it, not 2 s"
[ "$ms" -le $((baseline + 3500)) ] ||
	fail "server silent: the run took $ms ms, $baseline ms without a server"
finish

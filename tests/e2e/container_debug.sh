#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A container's stripped program (chain-static, --strip-all) and its debug
# file in the container's own root, /usr/lib/debug/.build-id/xx/rest.debug,
# run as pid 1 of a pid namespace chrooted there:
#  - without the debug file, its frames are named by its CFI only, and the
#    summary says how many frames stayed unnamed for want of symbols, in
#    which file (--stats-json: files_without_symbols, its build ID);
#  - with it, the chain is named whole, and no frame of it is unnamed;
#  - the debug file owned by nobody (the process is root's), then a FIFO
#    at its place: not read, said once, counted, and the run ends on time;
#  - none in the root, but DEBUGINFOD_URLS naming a debuginfod (Debian's, on
#    a loopback port) that serves it: fetched by its build ID, the chain
#    named whole (skipped without debuginfod).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v unshare > /dev/null || e2e_skip "unshare is not installed (util-linux)"
command -v chroot > /dev/null || e2e_skip "chroot is not installed"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'
croot=$tmp/croot
mkdir -p "$croot/bin" "$croot/tmp"
strip --strip-all -o "$croot/bin/work" "$WORKLOADS/chain-static"
build_id=$(readelf -n "$croot/bin/work" | awk '/Build ID:/ { print $3 }')
[ -n "$build_id" ] || fail "chain-static has no build ID"
debug=$croot/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug
mkdir -p "$(dirname "$debug")"

# record NAME: the workload launched in its namespaces, timed.
run() {
	local name=$1 t0 t1

	t0=$(date +%s)
	record "$name" -F 999 -o "$tmp/$name.folded" --stats-json "$tmp/$name.json" -- \
		unshare --pid --fork --mount-proc chroot "$croot" /bin/work 2
	t1=$(date +%s)
	expect_rc 0
	[ $((t1 - t0)) -le 12 ] || fail "$name: the run took $((t1 - t0)) s for 2 s of work"
	python3 "$e2e_dir/../stats/check_stats.py" "$tmp/$name.json" --summary "$tmp/$name.err" ||
		fail "$name: --stats-json and the summary disagree"
}

# Frames left unnamed in bin/work, by --stats-json (build ID checked), and the summary's line.
unnamed() {
	python3 - "$tmp/$1.json" "$build_id" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
work = [f for f in s["files_without_symbols"] if f["file"].endswith("/bin/work")]
assert all(f["build_id"] == sys.argv[2] for f in work), work
print(work[0]["frames"] if work else 0)
PY
}

run bare
n=$(unnamed bare)
echo "without the debug file: $n frames of bin/work unnamed" >&2
[ "$n" -ge 1000 ] || fail "$n frames of bin/work counted unnamed, expected most of its samples'"
grep -Eq '^  frames without symbols +[0-9]+ +\(in work [0-9]+' "$tmp/bare.err" ||
	fail "the summary does not say that frames of work have no symbols"

objcopy --only-keep-debug "$WORKLOADS/chain-static" "$debug"
run debug
check stacks "$tmp/debug.folded" --comm work --leaf leaf --expect "$chain" --min-ratio 0.95 \
	--min-samples 500
n=$(unnamed debug)
[ "$n" -eq 0 ] || fail "with its debug file, $n frames of bin/work counted unnamed"

# Not its own: refused, and its frames unnamed as without it.
chown nobody "$debug"
run owner
[ "$(grep -c "debug file candidate .*${build_id:2}\.debug.*not read: owned by" \
	"$tmp/owner.err")" -eq 1 ] || fail "no one warning that the debug file was refused"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["files_refused_owner"] < 1)' \
	"$tmp/owner.json" || fail "the debug file refused is not counted"
[ "$(unnamed owner)" -ge 1000 ] || fail "frames named from a debug file not the process's"

# A FIFO there: never opened, so the run goes on.
rm -f "$debug"
mkfifo "$debug"
run fifo
grep -q "debug file candidate .*not read: a FIFO" "$tmp/fifo.err" ||
	fail "no warning that the FIFO was refused"
rm -f "$debug"

if ! command -v debuginfod > /dev/null || ! command -v debuginfod-find > /dev/null; then
	echo "debuginfod is not installed: its run is skipped" >&2
	finish
fi
mkdir "$tmp/served"
objcopy --only-keep-debug "$WORKLOADS/chain-static" "$tmp/served/work.debug"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# (the server itself without DEBUGINFOD_URLS: it would ask itself what it lacks)
env -u DEBUGINFOD_URLS debuginfod -F "$tmp/served" -p "$port" -d "$tmp/debuginfod.sqlite" \
	> "$tmp/server.log" 2>&1 &
background+=("$!")
export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$tmp/cache
# a cache per try: the client remembers a miss (before the first scan) for 10 minutes
for i in $(seq 150); do
	DEBUGINFOD_CACHE_PATH=$tmp/cache-probe-$i debuginfod-find debuginfo "$build_id" \
		> /dev/null 2>&1 && break
	sleep 0.2
done
run fetched
check stacks "$tmp/fetched.folded" --comm work --leaf leaf --expect "$chain" --min-ratio 0.95 \
	--min-samples 500
n=$(unnamed fetched)
[ "$n" -eq 0 ] || fail "with its debug file from debuginfod, $n frames of bin/work unnamed"
finish

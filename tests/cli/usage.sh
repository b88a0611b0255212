#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The command line of unwprof: help texts, --version, and the exit codes of
# usage errors (64, documented in unwprof(1)).
#
# Usage: usage.sh UNWPROF VERSION FIXTURE
#   VERSION  the project version (meson.project_version())
#   FIXTURE  an ELF file dump-unwind accepts
set -u

unwprof=$1
version=$2
fixture=$3
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Runs unwprof with the given arguments; sets $rc, $tmp/out, $tmp/err.
run() {
	"$unwprof" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
}

expect_rc() {
	local want=$1
	shift
	run "$@"
	if [ "$rc" -ne "$want" ]; then
		fail "unwprof $* exited $rc, expected $want; stderr:"
		sed 's/^/    /' "$tmp/err"
		return 1
	fi
	return 0
}

# The commands listed by `unwprof --help`: the indented lines after
# "Commands:" up to the next empty line (a long help line may wrap).
list_commands() {
	awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' "$1"
}

# --help: lists dump-unwind, and every command it lists runs its own --help.
if expect_rc 0 --help; then
	cmds=$(list_commands "$tmp/out")
	echo "$cmds" | grep -qx 'dump-unwind' || fail "unwprof --help does not list dump-unwind"
	[ -n "$cmds" ] || fail "unwprof --help lists no command"
	for c in $cmds; do
		[ "$c" = help ] && continue
		expect_rc 0 "$c" --help || continue
		grep -q "unwprof $c" "$tmp/out" ||
			fail "unwprof $c --help does not show its usage line"
	done
	expect_rc 0 help dump-unwind
fi

# --version
if expect_rc 0 --version; then
	[ "$(head -n 1 "$tmp/out")" = "unwprof $version" ] ||
		fail "unwprof --version printed '$(head -n 1 "$tmp/out")', expected 'unwprof $version'"
fi

# dump-unwind --help: options and examples.
if expect_rc 0 dump-unwind --help; then
	for word in --json --pc --debug-file -v; do
		grep -q -- "$word" "$tmp/out" || fail "dump-unwind --help does not mention $word"
	done
	grep -qi 'example' "$tmp/out" || fail "dump-unwind --help shows no examples"
	grep -q 'unwprof dump-unwind ' "$tmp/out" || fail "dump-unwind --help shows no command line"
fi

# Usage errors: exit 64 with a message on stderr and nothing on stdout.
usage_error() {
	expect_rc 64 "$@" || return
	[ -s "$tmp/err" ] || fail "unwprof $*: exit 64 without a message"
	[ -s "$tmp/out" ] && fail "unwprof $*: usage error printed data on stdout"
}

usage_error
usage_error --no-such-option
usage_error no-such-command
usage_error help no-such-command
usage_error dump-unwind
usage_error dump-unwind --no-such-option "$fixture"
usage_error dump-unwind --pc "$fixture"
usage_error dump-unwind --pc zzz "$fixture"
usage_error dump-unwind --pc 0x10g0 "$fixture"
usage_error dump-unwind --pc "" "$fixture"
usage_error dump-unwind --pc -1 "$fixture"
usage_error dump-unwind --pc 0x1ffffffffffffffff "$fixture"
usage_error dump-unwind "$fixture" "$fixture" "$fixture" --no-such-option

# record and report: what -o's name says, and perf's options (checked before privileges).
usage_error record -o "$tmp/cpu.weird" -a -d 1
usage_error record -o "$tmp/noext" -a -d 1
usage_error record --format nope -a -d 1
usage_error record --call-graph lbr -a -d 1
usage_error record -C 3-1 -d 1
usage_error record -C x -d 1
usage_error record -p 1 -a -d 1
usage_error record -p 1 -d 1 -- true
usage_error record -t x -d 1
usage_error record -t 1 -p 1 -d 1
usage_error record -t 1 -a -d 1
usage_error report -i "$fixture" -o "$tmp/x.weird"
usage_error report -i "$fixture" --format svg
usage_error report --diff "$fixture" -i "$fixture" --fail-total
[ -e "$tmp/cpu.weird" ] && fail "record -o cpu.weird left a file"

# pprof is binary: never to a terminal (stdout a pty here), a usage error before anything else.
on_tty() {
	python3 -c 'import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))' "$unwprof" "$@" > "$tmp/tty" 2>&1
	rc=$?
}
on_tty record --format pprof -a -d 1
[ "$rc" -eq 64 ] && grep -q 'terminal' "$tmp/tty" ||
	fail "record --format pprof on a terminal exited $rc: $(cat "$tmp/tty")"

# A good run exits 0 (the same arguments as above, minus the mistake).
expect_rc 0 dump-unwind "$fixture"
expect_rc 0 dump-unwind --json "$fixture"
expect_rc 0 dump-unwind --pc 0x13a0 "$fixture"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok"

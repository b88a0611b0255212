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

# A good run exits 0 (the same arguments as above, minus the mistake).
expect_rc 0 dump-unwind "$fixture"
expect_rc 0 dump-unwind --json "$fixture"
expect_rc 0 dump-unwind --pc 0x13a0 "$fixture"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok"

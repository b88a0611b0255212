#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Output of dump-unwind: a failed write (to /dev/full) is an error, exit 1
# with a message; two runs on the same file print the same bytes.
#
# Usage: output.sh UNWPROF FIXTURE...
set -u

unwprof=$1
shift
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for f in "$@"; do
	for fmt in "" --json; do
		# $fmt is empty or one word: unquoted on purpose.
		"$unwprof" dump-unwind $fmt "$f" > /dev/full 2> "$tmp/err"
		rc=$?
		if [ "$rc" -ne 1 ]; then
			fail "dump-unwind $fmt $f > /dev/full exited $rc, expected 1"
		elif ! grep -q '^unwprof: ' "$tmp/err"; then
			fail "dump-unwind $fmt $f > /dev/full: no \"unwprof: \" message"
			sed 's/^/    /' "$tmp/err"
		fi

		"$unwprof" dump-unwind $fmt "$f" > "$tmp/a" 2> /dev/null
		rc=$?
		"$unwprof" dump-unwind $fmt "$f" > "$tmp/b" 2> /dev/null
		if [ "$rc" -ne 0 ]; then
			fail "dump-unwind $fmt $f exited $rc"
		elif ! cmp -s "$tmp/a" "$tmp/b"; then
			fail "dump-unwind $fmt $f printed different bytes in two runs"
		elif [ ! -s "$tmp/a" ]; then
			fail "dump-unwind $fmt $f printed nothing"
		fi
	done
done

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok"

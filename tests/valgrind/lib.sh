# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the valgrind tests. Runs unwprof under valgrind's memcheck and
# fails a check on any invalid access, use of an uninitialised value, or
# definite or indirect leak (valgrind then exits 99), or on an unexpected
# exit status. Skips the test (exit 77) when valgrind is not installed.
#
# Environment (set by tests/valgrind/meson.build):
#   UNWPROF   the unwprof executable
#   VG_SUPP   the suppressions of valgrind's own gaps (bpf.supp)
#
# Provides:
#   vg WANT ARGS...  runs `unwprof ARGS...` under valgrind, stdout to
#                    $tmp/out, stderr to $tmp/err; fails unless it exits WANT
#   fail MSG         counts a failed check
#   finish           exit status of the test: 1 if anything failed
set -u

if ! command -v valgrind >/dev/null; then
	echo "SKIP: valgrind is not installed (Debian package valgrind)" >&2
	exit 77
fi
if [ -z "${UNWPROF:-}" ] || [ ! -x "$UNWPROF" ]; then
	echo "FAIL: UNWPROF must name the unwprof binary" >&2
	exit 1
fi

fails=0
runs=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full
	"--errors-for-leak-kinds=definite,indirect" "--show-leak-kinds=definite,indirect"
	--track-fds=no --suppressions="${VG_SUPP:-/dev/null}")

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

vg() {
	local want=$1 rc

	shift
	runs=$((runs + 1))
	"${VALGRIND[@]}" "$UNWPROF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 99 ]; then
		fail "valgrind found errors in: unwprof $*"
		sed 's/^/    /' "$tmp/err" >&2
	elif [ "$rc" -ne "$want" ]; then
		fail "unwprof $* exited $rc under valgrind, expected $want"
		tail -n 20 "$tmp/err" | sed 's/^/    /' >&2
	fi
}

finish() {
	echo "$runs runs under valgrind, $fails failed" >&2
	[ "$fails" -eq 0 ] || exit 1
	exit 0
}

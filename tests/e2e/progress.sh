#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A word while record works: on a terminal, a line when sampling starts and
# a live count of samples, cleared before the summary; nothing of it when
# stderr is not a terminal or with --quiet; -v says what startup did and how
# long each step took.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# record with stdin, stdout and stderr on a pseudo-terminal; what it wrote to $tmp/$1.tty.
on_tty() {
	local name=$1

	shift
	python3 - "$tmp/$name.tty" "$UNWPROF" "$@" << 'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], [sys.argv[2]] + sys.argv[3:])
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
open(sys.argv[1], "wb").write(out)
sys.exit(os.waitstatus_to_exitcode(st))
EOF
	rc=$?
}

on_tty tty record -F 999 -d 1.5 -o "$tmp/tty.folded" -- "$WORKLOADS/chain-pie" 30
expect_rc 0
grep -aq 'sampling chain-pie and its children at 999 Hz for 1.5 s; Ctrl-C to stop sooner' \
	"$tmp/tty.tty" || fail "no line when sampling started: $(head -c 300 "$tmp/tty.tty")"
grep -aqE $'\r\e\\[Kunwprof: [1-9][0-9]* samples in [0-9.]+ s' "$tmp/tty.tty" ||
	fail "no live count of samples"
grep -aq 'walked to the bottom' "$tmp/tty.tty" || fail "no summary on the terminal"
on_tty quiet record --quiet -d 0.5 -o "$tmp/quiet.folded" -- "$WORKLOADS/chain-pie" 30
[ -s "$tmp/quiet.tty" ] && fail "--quiet on a terminal printed: $(head -c 200 "$tmp/quiet.tty")"

# Not a terminal: the summary alone.
record plain -d 0.5 -o "$tmp/plain.folded" -- "$WORKLOADS/chain-pie" 30
grep -q 'sampling\|samples in' "$tmp/plain.err" && fail "progress when stderr is not a terminal"

# -v: the steps of the startup with their times, and when sampling started.
record verbose -v -d 0.5 -o "$tmp/verbose.folded" -- "$WORKLOADS/chain-pie" 30
for step in 'BPF programs loaded and verified, the tables known so far built: [0-9]+ ms' \
	'its unwind tables loaded: [0-9]+ ms' 'perf events attached: [0-9]+ ms' \
	'sampling chain-pie .*\([0-9]+ ms to start\)'; do
	grep -qE "$step" "$tmp/verbose.err" || fail "-v does not say '$step'"
done
finish

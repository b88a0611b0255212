#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Source lines and inlined frames: the inline workload (main -> run, with
# checksum -> mix_word -> rotate inlined into run, built with -g) in folded
# output has the inlined functions as frames of their own with the suffix
# _[i]; in pprof each location holds them as Line entries, which
# `go tool pprof` shows (-traces, -lines, -list; skipped without go) and
# `unwprof report` reads back (--tree, --lines); --no-lines leaves both out.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

inlined='{START};main;run;checksum_\[i\];mix_word_\[i\](;rotate_\[i\])?'

record inline -F 999 -o "$tmp/inline.folded" -- "$WORKLOADS/inline" 2
expect_rc 0
check stacks "$tmp/inline.folded" --comm inline --leaf 'mix_word_[i]' --expect "$inlined" \
	--min-ratio 0.99 --min-samples 200 --inlined

record inline-pb -F 999 -o "$tmp/inline.pb.gz" -- "$WORKLOADS/inline" 1
expect_rc 0

# report reads the lines back: the same stacks, inlined calls marked in the tree.
"$UNWPROF" report -i "$tmp/inline.pb.gz" --folded > "$tmp/report.folded" ||
	fail "report --folded failed"
check stacks "$tmp/report.folded" --comm inline --leaf 'mix_word_[i]' --expect "$inlined" \
	--min-ratio 0.99 --min-samples 100 --inlined
# the other checks leave inlined frames out: run is then the leaf
check stacks "$tmp/inline.folded" --comm inline --leaf run --expect '{START};main;run' \
	--min-ratio 0.99 --min-samples 200
"$UNWPROF" report -i "$tmp/inline.pb.gz" --tree > "$tmp/tree.txt" || fail "report --tree failed"
grep -q 'mix_word (inline)' "$tmp/tree.txt" || fail "report --tree does not mark mix_word inlined"
"$UNWPROF" report -i "$tmp/inline.pb.gz" --lines --top 3 > "$tmp/lines.txt" ||
	fail "report --lines failed"
grep -Eq ' mix_word .*tests/workloads/inline\.c:[0-9]+$' "$tmp/lines.txt" ||
	fail "report --lines has no source line for mix_word"
cat "$tmp/lines.txt" >&2

# --no-lines: the same samples, named by their symbols only
record inline-nolines -F 999 --no-lines -o "$tmp/nolines.pb.gz" -- "$WORKLOADS/inline" 1
expect_rc 0
"$UNWPROF" report -i "$tmp/nolines.pb.gz" --folded > "$tmp/nolines.folded" ||
	fail "report --folded of the --no-lines profile failed"
check stacks "$tmp/nolines.folded" --comm inline --leaf run --expect '{START};main;run' \
	--min-ratio 0.99 --min-samples 100
! grep -q '_\[i\]' "$tmp/nolines.folded" || fail "--no-lines still has inlined frames"
"$UNWPROF" report -i "$tmp/nolines.pb.gz" --lines --top 3 > "$tmp/nolines.txt" ||
	fail "report --lines of the --no-lines profile failed"
! grep -q 'inline\.c:' "$tmp/nolines.txt" || fail "--no-lines still has source lines"

if command -v go > /dev/null; then
	go tool pprof -traces "$tmp/inline.pb.gz" > "$tmp/traces.txt" 2>&1 ||
		fail "go tool pprof -traces failed"
	grep -q 'mix_word (inline)' "$tmp/traces.txt" ||
		fail "go tool pprof -traces shows no inlined mix_word"
	go tool pprof -lines -top "$tmp/inline.pb.gz" > "$tmp/pprof-lines.txt" 2>&1 ||
		fail "go tool pprof -lines failed"
	grep -Eq 'mix_word .*inline\.c:[0-9]+ \(inline\)' "$tmp/pprof-lines.txt" ||
		fail "go tool pprof -lines shows no line of mix_word"
	go tool pprof -list '^run$' "$tmp/inline.pb.gz" > "$tmp/list.txt" 2>&1 ||
		fail "go tool pprof -list run failed"
	grep -q 'h = checksum(words, n' "$tmp/list.txt" ||
		fail "go tool pprof -list run does not show the source of run"
	head -20 "$tmp/pprof-lines.txt" >&2
else
	echo "go not found: the go tool pprof checks are skipped" >&2
fi
finish

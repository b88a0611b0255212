#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# report under valgrind: every view (top, tree, folded, JSON of each) with
# the filters, on folded stacks, on the pprof files unwprof writes and on a
# Go profile; --diff; pprof output; stdin; and bad files.
#
# usage: report.sh REPORT_FIXTURES PPROF_CORPUS
. "$(dirname "$0")/lib.sh"

folded=$1
pprof=$2

for in in "$folded/stacks.folded" "$pprof/unit.pb.gz" "$pprof/go.pb.gz" "$pprof/stacks.pb"; do
	vg 0 report -i "$in"
	vg 0 report -i "$in" --sort total --top 0 --json
	vg 0 report -i "$in" --tree --min-percent 0
	vg 0 report -i "$in" --tree --json
	vg 0 report -i "$in" --folded --with-tid
	vg 0 report -i "$in" --folded --json --no-kernel
	vg 0 report -i "$in" -o "$tmp/out.pb.gz"
	vg 0 report -i "$tmp/out.pb.gz" --folded
done
vg 0 report -i "$folded/stacks.folded" --pid 100 --comm demo --tree
grep -q compute "$tmp/out" || fail "report --pid 100 --tree lost compute"
vg 1 report -i "$folded/stacks.folded" --pid 4242
vg 0 report --diff "$folded/base.folded" -i "$folded/slower.folded"
vg 0 report --diff "$pprof/base.pb.gz" -i "$pprof/slower.pb.gz" --json
vg 3 report --diff "$folded/base.folded" -i "$folded/slower.folded" --fail-above 5
vg 0 report -i - <"$folded/stacks.folded"
# bad input: missing, truncated, corrupt, not a profile, a directory
vg 1 report -i /nonexistent
vg 1 report -i "$pprof/stacks-half.pb"
vg 1 report -i "$pprof/stacks-cut30.pb.gz"
vg 1 report -i "$pprof/stacks-flip20.pb.gz"
vg 1 report -i "$pprof/../corpus/x86-eh-frame.elf"
vg 1 report -i "$pprof"
vg 64 report
finish

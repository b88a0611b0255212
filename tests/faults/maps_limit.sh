#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A process with more executable mappings than BPF keeps per process
# (UNW_MAPS_MAX, 256): it dlopen()s 300 small shared objects generated and
# built here. Injected: 300 extra mappings. Expected: the limit is reported
# once, the run goes on, and the process's own chain main -> dlm_outer ->
# dlm_inner -> dlm_leaf is still walked completely. Lost: the mappings over
# the limit have no tables (frame pointers there), reported.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

nr=300
mkdir "$tmp/libs"
for i in $(seq 0 $((nr - 1))); do
	printf 'unsigned long dlm%d(unsigned long x)\n{\n\treturn x * %d + 1;\n}\n' "$i" "$((i + 3))" \
		> "$tmp/libs/dlm$i.c"
done
# Two compiler runs (even and odd), then a plain link each: quick on a busy machine.
for parity in 0 1; do
	(cd "$tmp/libs" && "${CC:-cc}" -O1 -fPIC -c $(seq -f 'dlm%g.c' "$parity" 2 $((nr - 1)))) &
done
wait
for i in $(seq 0 $((nr - 1))); do
	ld -shared -o "$tmp/libs/libdlm$i.so" "$tmp/libs/dlm$i.o" ||
		{ fail "cannot link libdlm$i.so"; finish; }
done

start_fault dlmany "$tmp/libs" "$nr" 60
wait_for "$tmp/dlmany.bg.out" loaded || finish
pid=$workload_pid
maps=$(awk '$2 ~ /x/ && $6 != ""' "/proc/$pid/maps" | wc -l)
echo "executable mappings of dlmany: $maps" >&2
[ "$maps" -gt 256 ] || fail "only $maps executable mappings: not over the limit"

record many -F 999 -d 3 -p "$pid" -o "$tmp/many.folded" --stats-json "$tmp/many.json"
expect_rc 0
python3 "$CHECK_STATS" "$tmp/many.json" --summary "$tmp/many.err" ||
	fail "the statistics do not match the summary"
python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['maps_over_limit'] < 1)" \
	"$tmp/many.json" || fail "maps_over_limit is not counted in --stats-json"
kill -0 "$pid" 2> /dev/null || fail "the workload did not survive the recording"
warnings=$(grep -c 'executable mappings' "$tmp/many.err")
[ "$warnings" -ge 1 ] || fail "the mapping limit was not reported"
[ "$warnings" -le 1 ] || fail "the mapping limit was reported $warnings times, not once"
# The frames below main are in libc, mapped above the 300 objects: past the
# limit, so only the chain from main up is required.
check stacks "$tmp/many.folded" --comm dlmany --leaf dlm_leaf \
	--expect '.*;main;dlm_outer;dlm_inner;dlm_leaf' --min-ratio 0.99 --min-samples 500
finish

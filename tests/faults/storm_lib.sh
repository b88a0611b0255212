# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by tests/faults/short_lived.sh and tests/bench/storm.sh:
#   storm FILE FORKER   runs FORKER 200 0 (200 children that exit at once)
#                       again and again until FILE disappears; the count of
#                       processes started so far is in FILE.count
#   map_memory PID [NAME|-NAME]
#                       the memlock bytes of the BPF maps process PID holds,
#                       as `bpftool map show` prints them; only those named
#                       NAME, or all but those with -NAME

storm() {
	local n=0

	while [ -e "$1" ]; do
		"$2" 200 0 > /dev/null 2>&1
		n=$((n + 200))
		echo "$n" > "$1.count"
	done
}

map_memory() {
	local ids

	ids=$(cat /proc/"$1"/fdinfo/* 2> /dev/null | sed -n 's/^map_id:[[:space:]]*//p' | sort -u)
	for id in $ids; do
		bpftool map show id "$id" 2> /dev/null
	done | awk -v want="${2:-}" '
		/^[0-9]+:/ { name = ""; for (i = 1; i < NF; i++) if ($i == "name") name = $(i + 1) }
		match($0, /memlock [0-9]+B/) {
			if (want == "" || (want ~ /^-/ ? name != substr(want, 2) : name == want))
				s += substr($0, RSTART + 8, RLENGTH - 9)
		}
		END { print s + 0 }'
}

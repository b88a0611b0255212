#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record --stats-json FILE: the summary as JSON, with the keys and types of
# schema 2, numbers that add up, the same numbers as the summary on stderr,
# written with --quiet too, and a FILE that cannot be written is an error
# before the run.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"

record chain -F 999 --stats-json "$tmp/stats.json" -o "$tmp/chain.folded" \
	-- "$WORKLOADS/chain-pie" 1
expect_rc 0
# The chain's 13 pcs are looked up again at every sample: all but the first
# sample's are cached, unless three of them share one of the cache's 512
# sets of two ways (about one run in a thousand), which costs those three.
python3 "$CHECK_STATS" "$tmp/stats.json" --summary "$tmp/chain.err" --min-walked 95 \
	--min-cached 70 ||
	fail "--stats-json of chain-pie"

# Over an existing file, with --quiet: replaced, nothing on stderr.
echo stale > "$tmp/quiet.json"
record quiet --quiet -F 999 --stats-json "$tmp/quiet.json" -o "$tmp/quiet.folded" \
	-- "$WORKLOADS/chain-pie" 0.5
expect_rc 0
[ -s "$tmp/quiet.err" ] && fail "--quiet: unwprof printed on stderr"
python3 "$CHECK_STATS" "$tmp/quiet.json" || fail "--stats-json with --quiet"
leftover=$(find "$tmp" -name 'quiet.json.*')
[ -z "$leftover" ] || fail "temporary files left behind: $leftover"

record nodir -F 999 --stats-json "$tmp/no-such-dir/stats.json" -- "$WORKLOADS/chain-pie" 0.2
expect_rc 1
grep -q "no-such-dir/stats.json" "$tmp/nodir.err" || fail "no message naming the stats file"
finish

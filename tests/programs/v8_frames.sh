#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: v8_frames.sh 20 | 24
#
# V8 frames in place, with no flags: chain.js run by this machine's node 20
# (V8 11.3, in /usr/bin/node with its .symtab) or by Debian sid's node 24
# (V8 13.6, in the stripped libnode.so.137) in the root of sid setup.sh
# builds, started there with chroot. Checks (e2e.py v8):
#  - dump-unwind reads the V8 of the file and its version;
#  - at least 90% of the main thread's samples have frames of chain.js, and
#    in at least 95% of those they are one chain's, (anonymous);main;outer;
#    middle;inner or (anonymous);main;sorter;byKey, in order, each
#    "NAME (FILE:LINE)", a function TurboFan inlined into its caller's code
#    "NAME (FILE:LINE)_[i]" (node 24 inlines middle and inner into outer
#    within a second);
#  - of the samples whose innermost frame of chain.js is inner (byKey), at
#    least 95% have the chain whole, the builtin sort's frame between sorter
#    and byKey, the leaf's line in its function, in at least 100 of each;
#  - attached with -p to one already running: the same;
#  - the self shares of main, outer, middle and inner together (V8's
#    profiler charges much of an inlined function's time to its caller), and
#    of byKey, agree within 5 points with node --cpu-prof's, in the same run
#    (e2e.py v8-cpuprof).
# In the root the program runs from a directory of its own under /tmp,
# removed at the end.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
src="$programs_src/chain.js"
case "$which" in
20)
	need_tool node "package nodejs"
	run=(node)
	path=$src
	elf=$(readlink -f "$(command -v node)")
	comm=node
	major=11.
	;;
24)
	need_sid_root usr/bin/node
	root=$sid_root
	run=(chroot "$root" node)
	inside=$(mktemp -d "$root/tmp/unwprof-v8.XXXXXX")
	trap 'rm -rf "$inside"; e2e_cleanup' EXIT
	cp "$src" "$inside/"
	path=${inside#"$root"}/chain.js
	libs=("$root"/usr/lib/x86_64-linux-gnu/libnode.so.*)
	elf=${libs[0]}
	comm=MainThread
	major=13.
	;;
*)
	echo "usage: v8_frames.sh 20 | 24" >&2
	exit 1
	;;
esac

"$UNWPROF" dump-unwind --summary --json "$elf" > "$tmp/v8.json" ||
	fail "dump-unwind $elf failed"
python3 -c 'import json, sys
v8 = json.load(open(sys.argv[1]))["v8"]
print("V8:", v8["version"], "builtins", v8["builtins"], file=sys.stderr)
sys.exit(not v8["version"].startswith(sys.argv[2]))' "$tmp/v8.json" "$major" ||
	fail "dump-unwind does not read $elf as V8 $major"

record v8 -F 999 --tid -o "$tmp/v8.folded" --stats-json "$tmp/v8.stats.json" -- \
	"${run[@]}" "$path" 3
expect_rc 0
check v8 "$tmp/v8.folded" --comm "$comm" --source "$src"

# Attached: a process already running, recorded by pid.
"${run[@]}" "$path" 30 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 1
record attach -p "$pid" -d 3 -F 999 --tid -o "$tmp/attach.folded"
expect_rc 0
check v8 "$tmp/attach.folded" --comm "$comm" --source "$src"
kill "$pid" 2> /dev/null

# V8's own sampling profiler in the same run: node --cpu-prof recorded.
if [ "$which" = 24 ]; then
	prof_dir=${inside#"$root"}
	out_dir=$inside
else
	prof_dir=$tmp/cpuprof
	out_dir=$prof_dir
fi
record shares -F 999 --tid -o "$tmp/shares.folded" -- \
	"${run[@]}" --cpu-prof --cpu-prof-dir="$prof_dir" "$path" 3
expect_rc 0
profiles=("$out_dir"/*.cpuprofile)
check v8-cpuprof "$tmp/shares.folded" "${profiles[0]}" \
	--comm "$comm" --source "$src"
finish

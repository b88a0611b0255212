#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Java's JIT frames named from the perf map the JVM writes, in each of its
# two ways (java.sh exit | jcmd):
#  - exit: -XX:+DumpPerfMapAtExit, the map written as the JVM ends, after
#    every sample was taken;
#  - jcmd: `jcmd PID Compiler.perfmap` run once while the program runs,
#    after unwprof has looked for the map and found none.
# Spin.java spends its time in work(int), compiled by the JIT, and the JVM
# runs with -XX:+PreserveFramePointer, so its compiled frames are walked by
# frame pointers. Checked:
#  - at least 90% of the samples whose leaf is in JIT code (a frame the map
#    names, or [anon+0x...]) are named, by the map's text whole: the map
#    itself, which the JVM wrote, is the reference;
#  - work(int) is named as the JVM names it, "long Spin.work(int)";
#  - at least 99% of the samples with user frames begin at a root.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

mode=${1:-exit}
need_tool java "Debian's openjdk-17-jdk-headless"
need_tool javac "Debian's openjdk-17-jdk-headless"
need_tool jcmd "Debian's openjdk-17-jdk-headless"

javac -d "$tmp" "$programs_src/Spin.java" || fail "javac failed"
jvm=(java -XX:+PreserveFramePointer -cp "$tmp")
case $mode in
exit)
	cmd=("${jvm[@]}" -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit Spin 6)
	;;
jcmd)
	# The JVM prints its pid; jcmd asks it for its map 2 s later, and has
	# the 8 s left to attach (a JVM of its own: seconds on a loaded machine).
	cmd=(bash -c '"$@" > "$0" & until pid=$(sed -n "s/^pid //p" "$0") && [ -n "$pid" ]; do
		sleep 0.1; done; sleep 2; jcmd "$pid" Compiler.perfmap > /dev/null; wait $!' \
		"$tmp/spin.out" "${jvm[@]}" Spin 10)
	;;
*)
	echo "usage: java.sh exit|jcmd" >&2
	exit 2
	;;
esac
record java -F 999 --pid -o "$tmp/java.folded" --stats-json "$tmp/java.json" -- "${cmd[@]}"
expect_rc 0
pid=$(sed -n 's/^java-\([0-9]*\);.*/\1/p' "$tmp/java.folded" | sort | uniq -c | sort -rn |
	awk 'NR == 1 { print $2 }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -s "$map" ] || fail "the JVM wrote no perf map ($map)"
check jit-named "$tmp/java.folded" "$map" --comm java --min-ratio 0.90 --min-samples 300 \
	--expect-leaf 'long Spin.work(int)'
check roots "$tmp/java.folded" --comm java --min-ratio 0.99
[ -n "$pid" ] && rm -f "$map"
finish

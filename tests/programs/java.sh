#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A JVM that writes a perf map, in each of its two ways (java.sh exit |
# jcmd), and runs with -XX:+PreserveFramePointer, as people ran one to
# profile it:
#  - exit: -XX:+DumpPerfMapAtExit, the map written as the JVM ends, after
#    every sample was taken;
#  - jcmd: `jcmd PID Compiler.perfmap` run once while the program runs,
#    after unwprof has looked for the map and found none.
# Spin.java spends its time in work(int), compiled by the JIT. Its frames
# are HotSpot's, walked and named from the JVM's own tables (the perf map
# stays for other JIT runtimes: tests/e2e/jit.sh). Checked:
#  - the JVM wrote its map;
#  - at least 90% of the main thread's samples have exactly the Java frames
#    Spin.main, Spin.work from the thread's root (the rest: the JVM's start);
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
record java -F 999 --tid -o "$tmp/java.folded" --stats-json "$tmp/java.json" -- "${cmd[@]}"
expect_rc 0
pid=$(sed -n 's/^java-\([0-9]*\)\/.*/\1/p' "$tmp/java.folded" | sort | uniq -c | sort -rn |
	awk 'NR == 1 { print $2 }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -s "$map" ] || fail "the JVM wrote no perf map ($map)"
check java-chain "$tmp/java.folded" --chain 'java=Spin.main;Spin.work' --min-ratio 0.90 \
	--min-samples 300
check roots "$tmp/java.folded" --comm java --min-ratio 0.99
[ -n "$pid" ] && rm -f "$map"
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Java frames walked and named from the JVM itself, no flag of the JVM's
# own for profiling: JavaChain.java run by Debian's JDK 17, recorded with
# --tid, launched and attached with -p. Its thread "interp" runs a chain
# the interpreter runs (its methods excluded from the JIT), "compiled" one
# the JIT compiles, C2 inlining some of its methods into others (their
# frames expanded from the nmethod's scopes, "_[i]"), "sorter" the JDK's
# Arrays.sort calling back a lambda. Checked (e2e.py java-chain):
#  - at least 95% of each thread's samples have exactly its chain's Java
#    frames, root first (Interp.run, interpTop, interpMid, interpLeaf;
#    Compiled.run, compTop, compMid, compLeaf; Sorter.run, sortOnce,
#    Arrays.sort, TimSort.sort, then TimSort's and the lambda's, which
#    frames a sample's pc in code C2 inlined the lambda into gets depends on
#    the PcDescs there), below the call stub, the VM's frames and the
#    thread's root;
#  - the lines, interpreted frames' and compiled ones' (their scopes'), lie in
#    their methods' bodies;
#  - the native walk is as complete as without them (lib.sh's roots);
#  - against JFR, the JVM's own sampler, recording the same run (e2e.py
#    java-jfr): at least 95% of JFR's samples have Java frames that are
#    those of a stack of unwprof's, in the same order, on the thread of the
#    same name; the methods' self shares within 10 points (JFR's samples are
#    a few hundred, and it drops those of a thread it cannot walk at its pc:
#    2 to 4 points off here, with -XX:+DebugNonSafepoints, which JFR needs
#    to place its samples in code C2 inlined into, 11 to 15 without);
#  - off-CPU (--off-cpu): the thread "sleeper", blocked in Thread.sleep and
#    Object.wait, has its Java frames down to the native method's;
#  - attached with -p to one already running: the same chains.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool java "Debian's openjdk-17-jdk-headless"
need_tool javac "Debian's openjdk-17-jdk-headless"
need_tool jfr "Debian's openjdk-17-jdk-headless"

javac -d "$tmp" "$programs_src/JavaChain.java" || fail "javac failed"
jvm=(java -XX:CompileCommand=quiet "-XX:CompileCommand=exclude,JavaChain::interp*" -cp "$tmp"
	JavaChain)
# shellcheck disable=SC2016 # Java's nested classes' $
chains=(--chain 'interp=JavaChain$Interp.run;JavaChain.interpTop;JavaChain.interpMid;JavaChain.interpLeaf'
	--chain 'compiled=JavaChain$Compiled.run;JavaChain.compTop;JavaChain.compMid;JavaChain.compLeaf'
	--chain-re 'sorter=JavaChain\$Sorter\.run;JavaChain\.sortOnce;java\.util\.Arrays\.sort;java\.util\.TimSort\.sort(;[^;]+)*'
	--lines 'JavaChain.interpLeaf=20-27' --lines 'JavaChain.interpMid=29-32'
	--lines 'JavaChain.interpTop=34-37' --lines 'JavaChain.compLeaf=39-48'
	--lines 'JavaChain.compMid=50-53' --lines 'JavaChain.compTop=55-58')

record java -F 999 --tid -o "$tmp/java.folded" --stats-json "$tmp/java.json" -- \
	"${jvm[0]}" "-XX:StartFlightRecording=filename=$tmp/java.jfr,settings=profile" \
	-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
	"${jvm[@]:1}" 8
expect_rc 0
# With -XX:+DebugNonSafepoints (for JFR), the pcs in sortKey inlined have scopes of their own.
check java-chain "$tmp/java.folded" "${chains[@]}" --lines 'JavaChain.sortKey=60-67'
check roots "$tmp/java.folded" --comm java --min-ratio 0.99
jfr print --json --stack-depth 64 --events jdk.ExecutionSample "$tmp/java.jfr" > "$tmp/jfr.json" ||
	fail "jfr print $tmp/java.jfr failed"
check java-jfr "$tmp/java.folded" "$tmp/jfr.json" --max-diff 0.10 --min-samples 2000

# Off-CPU: the thread blocked in Thread.sleep and Object.wait (their native
# methods' wrappers, compiled, or the interpreter's native entry) shows its
# Java frames.
record off --off-cpu -F 99 --tid -o "$tmp/off.folded" -- "${jvm[@]}" 3
expect_rc 0
# shellcheck disable=SC2016 # Java's nested classes' $
check java-chain "$tmp/off.folded" --chain-re 'sleeper=JavaChain\$Sleeper\.run;JavaChain\.(nap;java\.lang\.Thread\.sleep|waitOn;java\.lang\.Object\.wait)'

# Attached: a JVM already running, recorded by pid.
"${jvm[@]}" 30 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 2
record attach -p "$pid" -d 3 -F 999 --tid -o "$tmp/attach.folded"
expect_rc 0
check java-chain "$tmp/attach.folded" "${chains[@]}"
kill "$pid" 2> /dev/null
finish

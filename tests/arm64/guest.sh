# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# The recordings of the arm64 suite, in one boot of the emulated machine
# (run.sh --script, busybox sh): each writes NAME.folded, NAME.err and
# NAME.rc into $OUT, which suite.sh checks. At 99 Hz for a few seconds each:
# the machine is emulated, 20 to 40 times slower than this one. The BPF
# objects loaded before and after all of them are listed (bpf-ids): a run
# must leave none behind.

# rec NAME ARGS...: unwprof record ARGS...
rec() {
	name=$1
	shift
	echo "\$ unwprof record $*"
	"$UNWPROF" record "$@" > "$OUT/$name.folded" 2> "$OUT/$name.err"
	echo $? > "$OUT/$name.rc"
}

"$WORKLOADS/bpf-ids" > "$OUT/ids.before"
grep -m 1 '^Features' /proc/cpuinfo > "$OUT/cpu"

for w in chain-pie chain-nopie chain-static chain-static-pie chain-debug-frame chain-pac; do
	rec "$w" -F 99 -d 4 -- "$WORKLOADS/$w" 3
done
rec qsort -F 99 -d 4 -- "$WORKLOADS/qsort" 3
rec recurse -F 99 -d 4 -- "$WORKLOADS/recurse" 3 100
rec threads --tid -F 99 -d 4 -- "$WORKLOADS/threads" 3
rec dlopen -F 99 -d 6 -- "$WORKLOADS/dlopen" 5
rec vdso -F 99 -d 4 -- "$WORKLOADS/vdso" 3
rec sigframe -F 99 -d 4 -- "$WORKLOADS/sigframe" 3

# The guest's python3.11 (Debian's arm64 build): pythreads.py's threads, each its own chain.
rec python --tid -F 99 -d 8 -- python3.11 /files/pythreads.py 7
# Its ruby3.1: rbthreads.rb's threads, each its own chain.
rec ruby --tid -F 99 -d 8 -- ruby3.1 /files/rbthreads.rb 7

# -p: a process already running; -a: the whole machine, with one running.
"$WORKLOADS/chain-nopie" 600 > /dev/null 2>&1 &
pid=$!
sleep 1
rec attach -F 99 -d 3 -p "$pid"
rec system -F 99 -d 3 -a
kill "$pid"
wait

"$WORKLOADS/bpf-ids" > "$OUT/ids.after"

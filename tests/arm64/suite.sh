#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: suite.sh SOURCE_ROOT BUILD_DIR
#
# The arm64 suite: cross-builds unwprof and the workloads for aarch64 into
# BUILD_DIR/tests/arm64/cross (tests/arm64/aarch64.ini), boots the emulated
# machine (run.sh) to record there, in one boot, each workload of the e2e suite built
# without frame pointers (tests/arm64/guest.sh), and checks what came back
# as the e2e tests check it on x86_64: at least 99% of each chain's samples
# complete, through PIE, static and static-PIE executables, .debug_frame,
# a libc callback, recursion, threads, dlopen, the vDSO, a signal frame and
# return addresses signed with pointer authentication; Python and Ruby
# frames of Debian's arm64 python3.11 and ruby3.1; -p and -a; no BPF
# object left after the runs. A second boot records a program as a user of
# run.sh would. Then `dump-unwind` of every arm64 ELF file of the guest is
# compared with readelf's interpretation of its CFI
# (tests/oracle/readelf_oracle.py), with the unwprof of this machine.
#
# Environment: UNWPROF, this machine's unwprof. Without what the machine
# needs (setup.sh arm64) the suite skips with the reason (exit 77), or fails
# when UNWPROF_REQUIRE_BPF=1 (CI).
set -u

src=$1
build=$2
here=$src/tests/arm64
e2e="$src/tests/e2e/e2e.py"
cross=$build/tests/arm64/cross
root=${UNWPROF_ARM64_ROOT:-/var/cache/unwprof-tests/arm64}
out=$(mktemp -d)
fails=0
trap 'rm -rf "$out"' EXIT

unavailable() {
	if [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
		echo "FAIL: $* (UNWPROF_REQUIRE_BPF=1, so this is not skipped)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

check() {
	python3 "$e2e" "$@" || fails=$((fails + 1))
}

[ "$(id -u)" -eq 0 ] || unavailable "needs root to make the emulated machine's root (setup.sh arm64)"
if [ ! -f "$root/.unwprof-packages" ]; then
	UNWPROF_ARM64_ROOT=$root "$src/setup.sh" arm64 >&2
fi
[ -f "$root/vmlinux.btf" ] ||
	unavailable "no arm64 kernel and libraries in $root (setup.sh arm64 could not make them)" \
		"$(tail -n 3 "$root.tmp.log" 2> /dev/null | tr '\n' ' ')"
command -v aarch64-linux-gnu-gcc > /dev/null ||
	unavailable "aarch64-linux-gnu-gcc is not installed (setup.sh arm64)"

# The cross build, set up once, built again as the sources change.
start=$(date +%s)
mkdir -p "$cross"
printf "[constants]\nroot = '%s'\n" "$root" > "$build/tests/arm64/root.ini"
if [ ! -f "$cross/build.ninja" ]; then
	meson setup "$cross" "$src" --cross-file "$build/tests/arm64/root.ini" \
		--cross-file "$here/aarch64.ini" -Dwerror=true > "$out/setup.log" 2>&1 ||
		{ tail -n 20 "$out/setup.log" >&2; echo "FAIL: the cross build's setup" >&2; exit 1; }
fi
ninja -C "$cross" > "$out/build.log" 2>&1 ||
	{ grep -E 'error|FAILED' "$out/build.log" | head -n 20 >&2; echo "FAIL: the cross build" >&2; exit 1; }
echo "cross build: $(($(date +%s) - start)) s" >&2

"$here/run.sh" "$cross" --script "$here/guest.sh" --out "$out/guest" \
	"$src/tests/programs/pythreads.py" "$src/tests/programs/rbthreads.rb"
status=$?
[ "$status" -eq 77 ] && unavailable "the emulated machine cannot be made (above)"
[ -f "$out/guest/run.log" ] || { echo "FAIL: the guest ran nothing" >&2; exit 1; }
sed 's/^/    /' "$out/guest/run.log" >&2
[ "$status" -eq 0 ] || fail "the guest's script exited $status"
g=$out/guest

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'
for name in chain-pie chain-nopie chain-static chain-static-pie chain-debug-frame chain-pac qsort \
	recurse threads dlopen vdso sigframe python ruby attach system; do
	[ "$(cat "$g/$name.rc" 2> /dev/null)" = 0 ] ||
		{ fail "$name: record exited $(cat "$g/$name.rc" 2> /dev/null)"; sed 's/^/    /' "$g/$name.err" >&2; }
done
for name in chain-pie chain-nopie chain-static chain-static-pie chain-debug-frame chain-pac; do
	check stacks "$g/$name.folded" --comm "$name" --leaf leaf --expect "$chain" \
		--min-ratio 0.99 --min-samples 50
done
# The guest has pointer authentication: chain-pac's return addresses were signed.
grep -qw paca "$g/cpu" || fail "the guest has no pointer authentication (paca in /proc/cpuinfo)"
# A return address kept signed is in no mapping: every sample would count one. A few are
# the process's first samples, before its mappings are read.
samples=$(sed -n 's/^ *samples  *\([0-9]*\)$/\1/p' "$g/chain-pac.err")
uncovered=$(sed -n 's/^ *errors .*pc-not-covered \([0-9]*\).*/\1/p' "$g/chain-pac.err")
if [ -z "$samples" ] || [ "${uncovered:-0}" -gt $((samples / 100)) ]; then
	fail "chain-pac: return addresses not stripped of their PAC: pc-not-covered" \
		"${uncovered:-0} of ${samples:-no} samples"
fi

libc_unknown='\[libc\.so\.6\+0x[0-9a-f]+\]'
check stacks "$g/qsort.folded" --comm qsort --leaf weigh \
	--expect "{START};main;sort_round;(?:qsort_r|$libc_unknown)(?:;(?:msort_with_tmp|$libc_unknown))+;compare;weigh" \
	--min-ratio 0.99 --min-samples 50
descend=$(printf 'descend;%.0s' $(seq 101))
check stacks "$g/recurse.folded" --comm recurse --leaf bottom \
	--expect "{START};main;${descend}bottom" --min-ratio 0.99 --min-samples 50
for t in a b; do
	tid=$(sed -n "s/^threads: thread $t is tid \([0-9]*\)$/\1/p" "$g/threads.err")
	[ -n "$tid" ] || { fail "threads: no tid of thread $t"; continue; }
	check stacks "$g/threads.folded" --comm threads --leaf "leaf_$t" --tid "$tid" \
		--expect "{THREAD};thread_$t;${t}1;${t}2;leaf_$t" --min-ratio 0.99 --min-samples 40
done
check stacks "$g/dlopen.folded" --comm dlopen --leaf spin \
	--expect '{START};main;before_load;spin' --min-ratio 0.99 --min-samples 50
check stacks "$g/dlopen.folded" --comm dlopen --leaf dl_leaf \
	--expect '{START};main;run_lib;dl_entry;dl_mid;dl_leaf' --min-ratio 0.99 --min-samples 50
libc_clock="(?:__clock_gettime(?:64)?|clock_gettime(?:@@?GLIBC_[0-9.]+)?|$libc_unknown)"
check stacks "$g/vdso.folded" --comm vdso --leaf __kernel_clock_gettime \
	--expect "{START};main;outer;inner;$libc_clock;__kernel_clock_gettime" \
	--min-ratio 0.99 --min-samples 50
check stacks "$g/sigframe.folded" --comm sigframe --leaf sig_work \
	--expect '{START};main;busy_loop;__kernel_rt_sigreturn;on_sigprof;sig_work' \
	--min-ratio 0.99 --min-samples 50
check stacks "$g/attach.folded" --comm chain-nopie --leaf leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 50
# Python frames in place, each thread its own, found through aarch64's thread pointer.
check python "$g/python.folded" --comm python3.11 --qualname --min-samples 100
check roots "$g/python.folded" --min-ratio 0.99
# Ruby frames in place, each thread its own, its execution context through its TLS descriptor.
check ruby "$g/ruby.folded" --comm ruby3.1 --source "$src/tests/programs/rbthreads.rb" \
	--path /files/rbthreads.rb --min-samples 100
check roots "$g/ruby.folded" --min-ratio 0.99
check comms "$g/system.folded" --min 2
# -a builds the tables of each process as BPF reports it: samples before that use frame pointers.
check stacks "$g/system.folded" --comm chain-nopie --leaf leaf --expect "$chain" \
	--min-ratio 0.50 --min-samples 50
if ! cmp -s "$g/ids.before" "$g/ids.after"; then
	fail "BPF objects left after the recordings (bpf-ids before and after):"
	diff "$g/ids.before" "$g/ids.after" | head -n 10 >&2
fi

# run.sh as a user runs it, on an arm64 program of this machine: the folded profile on
# stdout, record's summary on stderr.
"$here/run.sh" -d 2 "$cross" -- "$cross/tests/workloads/chain-static" 2 > "$out/run.folded" \
	2> "$out/run.err" || { fail "run.sh -- chain-static exited $?"; cat "$out/run.err" >&2; }
grep -q 'samples accounted' "$out/run.err" || fail "run.sh: no summary of record on stderr"
check stacks "$out/run.folded" --comm chain-static --leaf leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 50

# What the walk reads of the guest's libruby, against readelf (e2e.py ruby-runtime).
libruby=$root/sysroot/usr/lib/aarch64-linux-gnu/libruby-3.1.so.3.1
"$UNWPROF" dump-unwind --summary --json "$libruby" > "$out/libruby.json" ||
	fail "dump-unwind $libruby failed"
check ruby-runtime "$out/libruby.json" "$libruby"

# Every arm64 ELF file of the guest (run.sh puts them there): the cross build's and the
# arm64 root's.
elfs=$(find "$cross/cmd/unwprof" "$cross/tests/workloads" "$cross/tests/arm64" \
	"$root/sysroot/bin" "$root/sysroot/lib" "$root/sysroot/lib/aarch64-linux-gnu" \
	"$root/sysroot/usr/lib/aarch64-linux-gnu" -maxdepth 1 -type f \
	\( -name '*.so*' -o ! -name '*.*' \))
n=0
rows=0
for f in $elfs; do
	head -c 4 "$f" | grep -q 'ELF' || continue
	n=$((n + 1))
	python3 "$src/tests/oracle/readelf_oracle.py" "$UNWPROF" "$f" > "$out/readelf.log" 2>&1 ||
		{ fail "dump-unwind differs from readelf on $f:"; tail -n 15 "$out/readelf.log" >&2; }
	rows=$((rows + $(sed -n 's/.*: \([0-9]*\) rows compared.*/\1/p' "$out/readelf.log")))
done
echo "dump-unwind against readelf: $n arm64 files, $rows rows compared" >&2
echo "the arm64 suite: $(($(date +%s) - start)) s" >&2
if [ "$fails" -ne 0 ]; then
	echo "$fails check(s) failed" >&2
	exit 1
fi
exit 0

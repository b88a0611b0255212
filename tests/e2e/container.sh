#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A process in a root of its own (chroot) that plants a symlink to a host
# file where unwprof looks for its executable: record must never open the
# host file, and must still profile the process with full stacks.
#
# /proc/PID/maps shows a chrooted process's files by their host path,
# $croot/bin/work. Inside the root the test creates that same path as a
# symlink to $decoy, an absolute host path: following /proc/PID/root$croot/
# bin/work the way the kernel does would jump back out to the host's $decoy.
# Inside the root, $decoy holds yet another ELF file, so a lookup that stays
# inside finds a file that is not the mapped one and must reject it too.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v strace > /dev/null || e2e_skip "strace is not installed"
command -v chroot > /dev/null || e2e_skip "chroot is not installed"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'
croot=$tmp/croot
decoy=$tmp/decoy.elf

mkdir -p "$croot/bin" "$croot$croot/bin" "$croot$tmp"
cp "$WORKLOADS/chain-static" "$croot/bin/work"
cp "$WORKLOADS/chain-pie" "$decoy"
cp "$WORKLOADS/chain-nopie" "$croot$decoy"
ln -s "$decoy" "$croot$croot/bin/work"

chroot "$croot" /bin/work 30 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 0.5
grep -q " $croot/bin/work\$" "/proc/$pid/maps" ||
	fail "the chrooted workload does not map $croot/bin/work"

# The profile, by the usual run (BPF objects released, no leak under ASan).
record container -vv -p "$pid" -d 2 -F 999 -o "$tmp/container.folded"
expect_rc 0
grep -q "bin/work (pid $pid): the path leads to another file than the mapped one" \
	"$tmp/container.err" || fail "the planted symlink was not noticed"
# The mapped file itself (through map_files) gives the full stacks.
check stacks "$tmp/container.folded" --comm work --leaf leaf --expect "$chain" \
	--min-ratio 0.95 --min-samples 100

# What it opens, by a second run under strace (LeakSanitizer cannot run under ptrace).
echo "\$ strace unwprof record -p $pid -d 1" >&2
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 strace -f -qq -y -e trace=open,openat,openat2 \
	-o "$tmp/strace.log" "$UNWPROF" record -p "$pid" -d 1 -o "$tmp/traced.folded" \
	2> "$tmp/traced.err"
rc=$?
show_log "$tmp/traced.err"
expect_rc 0
# -y names the file behind every fd an open returns.
if grep -F "<$decoy>" "$tmp/strace.log" >&2; then
	fail "record opened the host file $decoy through the process's root"
fi
grep -qF "/proc/$pid/root" "$tmp/strace.log" ||
	fail "record never opened anything inside /proc/$pid/root: the lookup was not exercised"
kill -0 "$pid" 2> /dev/null || fail "the profiled process did not survive the recording"
finish

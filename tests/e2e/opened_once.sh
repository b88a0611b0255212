#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Each mapped file is opened once per run, and its image parsed once, however
# many processes map it and whoever needs it (the unwind tables, the symbols):
# two processes of one program are recorded with -v under strace, and every
# file their /proc/PID/maps lists as executable is opened by unwprof for
# reading exactly once (found with O_PATH inside the process's root, which
# opens nothing, then opened through /proc/self/fd: strace -y names the file
# behind each fd), which -v says once per file, and its summary counts.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || e2e_skip "strace is not installed (setup.sh installs it)"

start_workload chain-pie 40
pid_a=$workload_pid
start_workload chain-pie 40
pid_b=$workload_pid
sleep 0.5

# The reference: the distinct files the targets map executable, by path.
for pid in "$pid_a" "$pid_b"; do
	awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' "/proc/$pid/maps"
done | sort -u > "$tmp/mapped"
[ -s "$tmp/mapped" ] || fail "no executable file mappings in /proc/$pid_a/maps"

echo "\$ strace -f -y -e trace=openat,openat2 unwprof record -v -p $pid_a,$pid_b -d 2 -F 999" >&2
# LeakSanitizer cannot run under ptrace: a sanitized build checks its leaks in the other tests.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -y -e trace=openat,openat2 -o "$tmp/strace" \
	"$UNWPROF" record -v -p "$pid_a,$pid_b" -d 2 -F 999 > "$tmp/run.out" 2> "$tmp/run.err"
rc=$?
show_log "$tmp/run.err"
expect_rc 0
check stacks "$tmp/run.out" --comm chain-pie --leaf leaf \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.99 --min-samples 200

while read -r path; do
	# openat(AT_FDCWD, "/proc/self/fd/N", O_RDONLY|O_CLOEXEC) = FD</PATH>, each open of
	# what was found that succeeded (the dynamic loader's opens of unwprof's own
	# libraries are by their paths)
	opens=$(grep -F '"/proc/self/fd/' "$tmp/strace" | grep -E ' = [0-9]+<' |
		grep -cF "<$path>")
	[ "$opens" -eq 1 ] || fail "$path: opened $opens times by unwprof, expected once"
	said=$(grep -cF "$path: opened once" "$tmp/run.err")
	[ "$said" -eq 1 ] || fail "$path: -v says it was opened $said times, expected once"
done < "$tmp/mapped"

# The summary counts them: the files of the targets and the [vdso].
want=$(($(wc -l < "$tmp/mapped") + 1))
got=$(sed -n 's/.*files: \([0-9]*\) mapped files opened, each once.*/\1/p' "$tmp/run.err")
[ "$got" = "$want" ] || fail "-v counts ${got:-no} mapped files opened, expected $want"
finish

# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by every end-to-end test. Sourcing it checks that the test can run:
# root, kernel BTF, bpftool, a BPF program that loads and a perf event that
# opens. When one is missing the test is skipped (exit 77, the reason on
# stderr), unless UNWPROF_REQUIRE_BPF=1 (CI), in which case it fails.
#
# Environment (set by tests/e2e/meson.build):
#   UNWPROF    the unwprof executable
#   WORKLOADS  the build directory of tests/workloads
#
# Provides:
#   record NAME ARGS...  runs `unwprof record ARGS...` with a 60 s limit;
#                        stdout to $tmp/NAME.out, stderr to $tmp/NAME.err,
#                        exit status in $rc; fails the test if a BPF program,
#                        map or link of the run outlives it
#   check ARGS...        one check of e2e.py (see its header); a failed check
#                        is counted, the test goes on
#   expect_rc WANT       fails the test unless $rc is WANT
#   start_workload NAME ARGS...  runs a workload in the background, pid in
#                        $workload_pid; killed when the test ends
#   finish               exit status of the test: 1 if anything failed
#   container_root DIR   makes DIR a root for "$in_container" DIR CMD...
#                        (in_container.sh: CMD as pid 1 of a pid namespace,
#                        chrooted into DIR, the host's /usr bound there, a
#                        /tmp of its own)
#   container_pid COMM   the pid here of pid 1 of a namespace named COMM
set -u

e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
in_container=$e2e_dir/in_container.sh
fails=0
background=()
tmp=$(mktemp -d)

e2e_cleanup() {
	local pid

	for pid in "${background[@]}"; do
		kill "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap e2e_cleanup EXIT

e2e_skip() {
	if [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
		echo "FAIL: $* (UNWPROF_REQUIRE_BPF=1, so this is not skipped)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# A test that drives unwprof through the hooks of the test suite (UNWPROF_BPF_*) needs a
# build that reads them: ./setup.sh test configures one (-Dtest_hooks=true).
need_test_hooks() {
	[ "${UNWPROF_TEST_HOOKS:-0}" = 1 ] ||
		e2e_skip "unwprof was built without -Dtest_hooks=true, so it ignores $*"
}

e2e_require_bpf() {
	local why

	[ "$(id -u)" -eq 0 ] || e2e_skip "needs root to load BPF programs and open perf events"
	[ -r /sys/kernel/btf/vmlinux ] || e2e_skip "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	command -v bpftool >/dev/null || e2e_skip "bpftool is not installed"
	why=$(python3 "$e2e_dir/e2e.py" bpf-probe 2>&1) || e2e_skip "$why"
	if [ -z "${UNWPROF:-}" ] || [ ! -x "$UNWPROF" ] || [ ! -d "${WORKLOADS:-}" ]; then
		echo "FAIL: UNWPROF and WORKLOADS must name the unwprof binary and the workloads" >&2
		exit 1
	fi
}

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

check() {
	python3 "$e2e_dir/e2e.py" "$@" || fails=$((fails + 1))
}

record() {
	local name=$1

	shift
	echo "\$ unwprof record $*" >&2
	python3 "$e2e_dir/e2e.py" run --out "$tmp/$name.out" --err "$tmp/$name.err" \
		--rc "$tmp/$name.rc" -- "$UNWPROF" record "$@" || fails=$((fails + 1))
	rc=$(cat "$tmp/$name.rc" 2> /dev/null || echo -1)
	show_log "$tmp/$name.err"
}

# The stderr of a run, indented; the middle of a long one left out.
show_log() {
	local n

	n=$(wc -l < "$1")
	if [ "$n" -le 40 ]; then
		sed 's/^/    /' "$1" >&2
		return
	fi
	sed -n '1,10s/^/    /p' "$1" >&2
	echo "    [... $((n - 30)) lines ...]" >&2
	tail -n 20 "$1" | sed 's/^/    /' >&2
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "unwprof record exited $rc, expected $1"
}

start_workload() {
	local name=$1

	shift
	"$WORKLOADS/$name" "$@" > "$tmp/$name.bg.out" 2>&1 &
	workload_pid=$!
	background+=("$workload_pid")
}

finish() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails check(s) failed" >&2
		exit 1
	fi
	exit 0
}

container_root() {
	local root=$1 d

	command -v unshare > /dev/null || e2e_skip "unshare is not installed (util-linux)"
	command -v chroot > /dev/null || e2e_skip "chroot is not installed"
	mkdir -p "$root/tmp" "$root/usr" "$root/proc" "$root/dev"
	chmod 1777 "$root/tmp"
	for d in bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$d" ]; then
			ln -sfn "$(readlink "/$d")" "$root/$d"
		elif [ -d "/$d" ]; then
			mkdir -p "$root/$d"
		fi
	done
}

# The pid here of process 1 of a pid namespace whose comm is $1, the newest.
container_pid() {
	local p

	for p in $(pgrep -x "$1" | sort -rn); do
		grep -Eq '^NSpid:[[:space:]]+[0-9]+[[:space:]]+1$' "/proc/$p/status" 2> /dev/null &&
			echo "$p" && return 0
	done
	return 1
}

e2e_require_bpf
# The tests of the walk in tail calls run the usual scripts with the hook set.
[ -z "${UNWPROF_BPF_TAIL_CALLS:-}" ] || need_test_hooks UNWPROF_BPF_TAIL_CALLS

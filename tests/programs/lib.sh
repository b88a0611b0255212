# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by every program test. It sources tests/e2e/lib.sh, which checks
# root and BPF (skip, or fail when UNWPROF_REQUIRE_BPF=1) and provides
# record, check, expect_rc and finish, then adds:
#
#   need_program NAME WHAT   skips unless $PROGRAMS/NAME was built (WHAT, the
#                            compiler or linker it needs, was found)
#   need_tool CMD WHAT       skips unless CMD is installed
#   need_sid_root FILE       skips unless the root of Debian sid that setup.sh
#                            builds ($UNWPROF_SID_ROOT, by default
#                            /var/cache/unwprof-tests/sid) holds FILE, a path
#                            inside it; the root's path in $sid_root
#   profile NAME CMD ARGS... `unwprof record -F 999` of CMD: folded stacks in
#                            $tmp/NAME.folded, the summary as JSON in
#                            $tmp/NAME.json; fails the test unless CMD exits 0
#   perf_profile NAME CMD ARGS...  `perf record --call-graph dwarf` of the
#                            same command, as folded stacks in $tmp/NAME.perf
#   against_perf NAME MIN    the checks of a program without a known chain:
#                            see below
#
# A tool that is missing skips the test (exit 77, the reason on stderr), or
# fails it when UNWPROF_REQUIRE_BPF=1: setup.sh installs every tool these
# tests use, so in CI a missing one is a failure.
#
# Environment (set by tests/programs/meson.build): UNWPROF, WORKLOADS and
# PROGRAMS, the build directory of tests/programs.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

programs_src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
gen="$programs_src/gen.py"
e2e="$e2e_dir/e2e.py"

if [ ! -d "${PROGRAMS:-}" ]; then
	echo "FAIL: PROGRAMS must name the build directory of tests/programs" >&2
	exit 1
fi

need_program() {
	[ -x "$PROGRAMS/$1" ] || e2e_skip "$1 was not built: $2 was not found when the build" \
		"was configured (./setup.sh installs it; then meson setup --reconfigure)"
}

need_tool() {
	command -v "$1" > /dev/null || e2e_skip "$1 is not installed ($2; ./setup.sh installs it)"
}

profile() {
	local name=$1

	shift
	record "$name" -F 999 -o "$tmp/$name.folded" --stats-json "$tmp/$name.json" -- "$@"
	expect_rc 0
}

perf_profile() {
	local name=$1

	shift
	need_tool perf "linux-perf, the reference profiler"
	echo "\$ perf record -e cpu-clock -F 999 --call-graph dwarf -- $*" >&2
	python3 "$e2e" perf "$tmp/$name.perf" -- "$@" || fails=$((fails + 1))
}

# The checks of a program whose stacks are only known to perf, with MIN the
# share that must be walked (0.99; less for short-lived processes):
#  - at least MIN of the samples were walked to the bottom (--stats-json);
#  - at least MIN of the samples with user frames begin at a root of their
#    process: _start (the executable's, or ld.so's while it loads it) or
#    clone3;start_thread for a thread, so "walked" means to the real bottom;
#  - self time agrees with perf's: every function (every file, for code
#    without symbols) with at least 2% of the samples as leaf in one profile
#    has at least 0.6% in the other. Two runs of a program differ that much:
#    perl's Perl_do_ncmp had 0.8% to 1.2% of perf's samples in three runs,
#    and 2.3% in one on a busy machine; a leaf named wrong has none;
#  - the frames near the leaf agree with perf's: every function or call site
#    (a return address, for code without symbols) among the 8 user frames
#    nearest the leaf of at least 5% of one profile's samples is there in at
#    least 2.5% of the other's. perf's DWARF unwinding is independent of
#    unwprof's and reliable near the leaf (its 8 KiB stack copy only cuts
#    deep stacks short), so a wrong or missing caller shows here.
# perf's own share of stacks that begin at a root is printed, not checked.
against_perf() {
	local name=$1 min=$2

	check stats "$tmp/$name.json" --min-walked "$min"
	check roots "$tmp/$name.folded" --min-ratio "$min"
	[ -f "$tmp/$name.perf" ] || return 0
	echo "perf, for reference:" >&2
	python3 "$e2e" roots "$tmp/$name.perf" --min-ratio 0 || true
	check compare "$tmp/$name.folded" "$tmp/$name.perf" --depth 1 --min-share 0.02 --min-other 0.006
	check compare "$tmp/$name.folded" "$tmp/$name.perf" --depth 8 --min-share 0.05
}

need_sid_root() {
	sid_root=${UNWPROF_SID_ROOT:-/var/cache/unwprof-tests/sid}
	need_tool chroot "coreutils"
	[ -e "$sid_root/$1" ] || e2e_skip "$sid_root/$1 is not there: the root of Debian sid" \
		"was not built (./setup.sh test builds it, or says why it could not)"
}

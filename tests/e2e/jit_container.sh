#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# JIT code of a process in a container (tests/workloads/jit.c run as pid 1 of
# a pid namespace, chrooted into a root of its own with the host's /usr, as
# in_container.sh runs it): it names its code in /tmp/perf-1.map of
# its root, under its pid there, which is neither unwprof's /tmp nor its pid
# here. Launched, attached with -p, and with its jitdump in its root's /tmp
# instead (found by the mapping of the file): the samples of jit_framed have
# their whole stack, main;run_framed;jit_framed, named from its files. A map
# left at the host's /tmp/perf-PID.map for its host pid names nothing.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || e2e_skip "the generated code of the jit workload is x86_64"

croot=$tmp/croot
container_root "$croot"
cp "$WORKLOADS/jit" "$croot/jit"
chain='{START};main;run_framed;jit_framed'

# Launched: unshare, then chroot, then the workload, followed through its execs.
record launched -F 999 -o "$tmp/launched.folded" -- "$in_container" "$croot" /jit 3
expect_rc 0
[ -s "$croot/tmp/perf-1.map" ] || fail "the workload wrote no /tmp/perf-1.map in its root"
check stacks "$tmp/launched.folded" --comm jit --leaf jit_framed --expect "$chain" \
	--min-ratio 0.95 --min-samples 300
rm -f "$croot/tmp/perf-1.map"

# Attached, while a decoy at the host's /tmp/perf-HOSTPID.map names its code otherwise.
"$in_container" "$croot" /jit 20 > "$tmp/attached.out" 2>&1 &
background+=("$!")
for _ in $(seq 50); do grep -q '^ready' "$tmp/attached.out" && break; sleep 0.1; done
pid=$(container_pid jit)
{ [ -n "$pid" ] && grep -qx 'ready 1' "$tmp/attached.out"; } ||
	fail "the workload is not pid 1 of its namespace: $(cat "$tmp/attached.out")"
sed 's/jit_/decoy_/' "$croot/tmp/perf-1.map" > "/tmp/perf-$pid.map"
record attached -F 999 -p "$pid" -d 2 -o "$tmp/attached.folded"
rm -f "/tmp/perf-$pid.map"
expect_rc 0
check stacks "$tmp/attached.folded" --comm jit --leaf jit_framed --expect "$chain" \
	--min-ratio 0.95 --min-samples 300 --never decoy_
kill -KILL "$pid" 2> /dev/null # pid 1 of its namespace: no SIGTERM
rm -f "$croot/tmp/perf-1.map"

# Its jitdump, /tmp/jit-1.dump in its root, found by the mapping of the file.
record jitdump -F 999 -o "$tmp/jitdump.folded" -- "$in_container" "$croot" /jit 3 /tmp
expect_rc 0
{ [ -s "$croot/tmp/jit-1.dump" ] && [ ! -e "$croot/tmp/perf-1.map" ]; } ||
	fail "the workload did not write its jitdump alone in its root"
check stacks "$tmp/jitdump.folded" --comm jit --leaf jit_framed --expect "$chain" \
	--min-ratio 0.95 --min-samples 300
finish

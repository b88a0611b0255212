#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# record --off-cpu of goblock.go (see its header). A goroutine that blocks in
# a system call keeps its thread: the time off the CPU under main.napOnce
# agrees with what the program measured around its nanosleeps (2% or 2 ms),
# and those stacks reach runtime.goexit through main.napper. A parked
# goroutine has no thread of its own: what waits is the thread that ran it,
# in Go's scheduler, whose stacks reach runtime.mstart (or a goroutine's
# runtime.goexit, for a thread parked from a goroutine's stack).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_program goblock "go (package golang-go)"

record block --off-cpu --off-cpu-min 0 --off-cpu-walks 1000000 -F 99 -o "$tmp/block.folded" \
	-- "$PROGRAMS/goblock" 2
expect_rc 0
python3 - "$tmp/block.folded" "$tmp/block.err" <<'PY' || fails=$((fails + 1))
import re, sys

waited = int(re.search(r"goblock: napOnce waited (\d+) ns", open(sys.argv[2]).read()).group(1))
nap = nap_rooted = sched = sched_rooted = 0
root = re.compile(r"^runtime\.(goexit|mstart|rt0_go)(\.abi0)?(;|$)")
for line in open(sys.argv[1]):
    stack, _, value = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if frames[-1] != "[off-cpu]" or "[unwalked]" in frames:
        continue
    user = ";".join(f for f in frames[1:-1] if not f.endswith("_[k]"))
    us = int(value)
    if "main.napOnce" in user:
        nap += us
        nap_rooted += us if re.match(r"^runtime\.goexit(\.abi0)?;(main\.main\.func\d+;)?main\.napper;main\.napOnce;", user) else 0
    elif re.search(r"runtime\.(stopm|notesleep|futexsleep|netpoll)", user):
        sched += us
        sched_rooted += us if root.match(user) else 0
ok = abs(nap - waited / 1000) <= max(waited / 1000 * 0.02, 2000)
print(f"main.napOnce: {nap / 1000:.1f} ms off the CPU, measured {waited / 1e6:.1f} ms, "
      f"{nap_rooted / max(nap, 1):.1%} from runtime.goexit through main.napper", file=sys.stderr)
print(f"Go's scheduler: {sched / 1000:.1f} ms off the CPU, {sched_rooted / max(sched, 1):.1%} "
      f"from a root", file=sys.stderr)
ok &= nap_rooted >= 0.99 * nap > 0
ok &= sched > 0 and sched_rooted >= 0.95 * sched
sys.exit(0 if ok else 1)
PY
finish

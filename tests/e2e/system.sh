#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# System-wide (-a): the chain workload, started before the recording, is
# seen among the other processes, with complete stacks once its tables are
# built. They are built on demand, one process after the other as BPF reports
# them, and the samples before that are walked with frame pointers only: on a
# busy machine the workload may wait behind large processes (a compiler's
# cc1 has a million rows), hence only half of its samples are required to be
# complete. 0% would mean its tables never arrived. Idle CPUs and kernel
# threads are counted as such (the CPU running only the workload, the other
# one mostly idle), and so are samples inside exec, not as failures nor as
# no-user-stack errors.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'

start_workload chain-nopie 30
sleep 0.5
record system -a -d 2 -F 999 --stats-json "$tmp/system.json"
expect_rc 0
python3 - "$tmp/system.json" << 'EOF' || fail "idle and kernel-thread samples are counted as failures"
import json, sys
s = json.load(open(sys.argv[1]))
o = s["outcomes"]
print(f"samples {s['samples']}, idle {o['idle']}, kernel threads {o['kernel_threads']}, "
      f"failed {o['failed']}, no-user-stack {s['errors']['no-user-stack']}", file=sys.stderr)
# the part of the samples failed is no larger than that of user samples not walked
ok = s["errors"]["no-user-stack"] <= o["failed"] and s["user_samples"] + o["idle"] + \
    o["kernel_threads"] + o["exec"] == s["samples"] and o["failed"] <= 0.2 * s["user_samples"]
sys.exit(0 if ok else 1)
EOF
check comms "$tmp/system.out" --min 2
check stacks "$tmp/system.out" --comm chain-nopie --leaf leaf --expect "$chain" \
	--min-ratio 0.50 --min-samples 150
finish

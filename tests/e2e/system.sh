#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# System-wide (-a): the chain workload, started before the recording, is
# seen among the other processes, with complete stacks once its tables are
# built. They are built on demand, one process after the other as BPF reports
# them, and the samples before that are walked with frame pointers only: on a
# busy machine the workload may wait behind large processes (a compiler's
# cc1 has a million rows), hence only half of its samples are required to be
# complete. 0% would mean its tables never arrived.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

chain='{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf'

start_workload chain-nopie 30
sleep 0.5
record system -a -d 2 -F 999
expect_rc 0
check comms "$tmp/system.out" --min 2
check stacks "$tmp/system.out" --comm chain-nopie --leaf leaf --expect "$chain" \
	--min-ratio 0.50 --min-samples 150
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make -j2` of a generated C project (gen.py c-project: 40 files of a dozen
# functions, each compiled by gcc -O2 -c, then linked): about 200 processes
# (make, gcc, cc1, as, collect2, ld), each living 50-100 ms, whose tables
# must be loaded as they exec. The checks are those of lib.sh's against_perf
# with 97% instead of 99% (a process sampled as it execs or exits has no
# stack to walk): walked to the bottom, stacks that begin at a root, self
# time and the frames near the leaf as perf sees them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool make "make"
need_tool gcc "gcc"
python3 "$gen" c-project "$tmp/project" 40

profile make make -s -C "$tmp/project" -j2
rm -f "$tmp"/project/*.o "$tmp/project/prog"
perf_profile make make -s -C "$tmp/project" -j2
against_perf make 0.97
check comms "$tmp/make.folded" --min 5
finish

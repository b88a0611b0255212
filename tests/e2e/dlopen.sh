#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A library loaded with dlopen() half-way through the run: once it is mapped,
# the samples in it are complete (library frames, then the executable's
# frames down to _start) and symbolized.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

record dlopen -F 999 -o "$tmp/dlopen.folded" -- "$WORKLOADS/dlopen" 4
expect_rc 0
check stacks "$tmp/dlopen.folded" --comm dlopen --leaf spin \
	--expect '{START};main;before_load;spin' --min-ratio 0.99 --min-samples 150
check stacks "$tmp/dlopen.folded" --comm dlopen --leaf dl_leaf \
	--expect '{START};main;run_lib;dl_entry;dl_mid;dl_leaf' --min-ratio 0.95 --min-samples 150
finish

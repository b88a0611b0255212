#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A short libFuzzer run of a target, starting from the checked-in corpus.
# New inputs go to a scratch directory in the build tree, never into the
# source corpus; a crash leaves its input (crash-*) in that directory.
#
# usage: smoke.sh FUZZER CORPUS SCRATCH [SECONDS]
set -eu

fuzzer=$1
corpus=$2
scratch=$3
seconds=${4:-20}

mkdir -p "$scratch/new" "$scratch/artifacts"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$scratch/artifacts/" "$scratch/new" "$corpus"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `xz -T2` (stripped; its code is in liblzma.so.5, dynamic symbols only)
# compressing 8 MiB of generated text in 2 MiB blocks, so that both worker
# threads compress while the main thread reads and writes. The checks are
# those of lib.sh's against_perf with 99%: walked to the bottom, stacks that
# begin at a root (the workers' at clone3;start_thread), self time and the
# frames near the leaf as perf sees them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool xz "xz-utils"
python3 "$gen" data "$tmp/data" 8

profile xz xz -T2 -6 --block-size=2MiB -k -f "$tmp/data"
perf_profile xz xz -T2 -6 --block-size=2MiB -k -f "$tmp/data"
against_perf xz 0.99
check stacks "$tmp/xz.folded" --comm xz --expect '{THREAD};.*' --min-ratio 0.5
finish

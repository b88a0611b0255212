#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's /usr/bin/python3.11 (stripped: dynamic symbols only) running
# busy.py for 3 s: the eval loop re-entered through C (sorted with a key,
# map), json, re, big integers. The checks are those of lib.sh's
# against_perf with 99%: walked to the bottom, stacks that begin at a root,
# self time and the frames near the leaf as perf sees them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

python=/usr/bin/python3.11
[ -x "$python" ] || e2e_skip "$python is not installed (package python3.11; ./setup.sh installs it)"

profile python "$python" "$programs_src/busy.py" 3
perf_profile python "$python" "$programs_src/busy.py" 3
against_perf python 0.99
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's /usr/bin/perl (stripped; its code is in libperl.so.5.36, dynamic
# symbols only) running busy.pl for 3 s: regular expressions, sort with a
# comparator, hashes, sprintf. The checks are those of lib.sh's
# against_perf with 99%: walked to the bottom, stacks that begin at a root,
# self time and the frames near the leaf as perf sees them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

perl=/usr/bin/perl
[ -x "$perl" ] || e2e_skip "$perl is not installed (package perl; ./setup.sh installs it)"

profile perl "$perl" "$programs_src/busy.pl" 3
perf_profile perl "$perl" "$programs_src/busy.pl" 3
against_perf perl 0.99
finish

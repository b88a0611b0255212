#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `unwprof record -o FILE.svg` on the chain workload: the flame graph shows
# the whole chain main -> f1 ... f8 -> leaf under chain-pie when Chromium
# renders it, search and zoom work on it, and --format svg writes the same
# kind of file to stdout.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"

frames=main,f1,f2,f3,f4,f5,f6,f7,f8,leaf

record svg -F 999 -o "$tmp/chain.svg" -- "$WORKLOADS/chain-pie" 2
expect_rc 0
python3 "$RENDER" "$tmp/chain.svg" --comm chain-pie --frames "$frames" --min-share 0.9
case $? in
0) ;;
77) echo "SKIP: chromium is not installed" >&2; exit 77 ;;
*) fail "the flame graph of chain-pie" ;;
esac

record stdout --quiet --format svg -F 999 -- "$WORKLOADS/chain-pie" 0.5
expect_rc 0
head -c 200 "$tmp/stdout.out" | grep -q '<svg ' || fail "--format svg: no <svg> on stdout"
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$tmp/stdout.out" ||
	fail "--format svg: stdout is not well-formed XML"
finish

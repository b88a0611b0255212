#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `clang -O2 -c` of a generated C function of 2000 if statements nested in
# each other (gen.py nested): clang's parser and Sema recurse through each
# level, so a tenth of its samples have stacks of about 10,000 frames, deeper
# than the 1024 words a stack keeps. Debian's clang and libLLVM, stripped of
# .symtab, as a user has them. Such a stack is walked to its root and keeps
# both ends, the frames left out counted by one frame between them. Checks:
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples with user frames begin at a root (_start,
#    the executable's or ld.so's, a thread's clone3, or ld.so's
#    _dl_start_user while it runs the libraries' initializers);
#  - at least 30 samples hold the frame that counts those left out, and 99%
#    of them begin at clang's main.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool clang "clang (Debian's clang-14)"
python3 "$gen" nested "$tmp/nested.c" 2000

profile clang "clang" -O2 -fbracket-depth=100000 -c "$tmp/nested.c" -o "$tmp/nested.o"
check stats "$tmp/clang.json" --min-walked 0.99
check roots "$tmp/clang.folded" --root '_start' --root '{THREAD}' --root '_dl_start_user' \
	--min-ratio 0.99
check stacks "$tmp/clang.folded" --comm clang --through '\[\.\.\. [0-9,]+ frames \.\.\.\]' \
	--expect '{START};main;.*' --min-ratio 0.99 --min-samples 30
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: cxx.sh COMPILER   (g++ or clang++)
#
# `COMPILER -std=c++17 -O2 -c` of a generated C++ file of template-heavy code
# (std containers, algorithms, lambdas, std::function, std::variant; gen.py
# cxx), 3-5 s here: g++ runs cc1plus and as, clang++ compiles in its own
# process with libLLVM and libclang-cpp (Debian's are stripped of .symtab
# but keep their dynamic symbols). Both are large and have deep stacks.
# The checks are those of lib.sh's against_perf with 99%: walked to the
# bottom, stacks that begin at a root, self time and the frames near the
# leaf as perf sees them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

cxx=$1
need_tool "$cxx" "the C++ compiler under test"
name=${cxx//+/x}
python3 "$gen" cxx "$tmp/units.cpp" 6

profile "$name" "$cxx" -std=c++17 -O2 -c "$tmp/units.cpp" -o "$tmp/units.o"
perf_profile "$name" "$cxx" -std=c++17 -O2 -c "$tmp/units.cpp" -o "$tmp/units.o"
against_perf "$name" 0.99
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# chain.rs (main -> f1 -> ... -> f8 -> leaf, #[inline(never)]) built with
# plain `rustc -O`: no frame pointers, and since rustc 1.90 linked by its
# bundled rust-lld, which puts the code segment at a file offset that is not
# a multiple of the page size. Checks:
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples in leaf have exactly the whole chain: _start
#    through glibc's start code to the C main rustc generates, Rust's runtime
#    (std::rt::lang_start and the frames it calls our main through, their
#    number depends on the version of std), then chain::main, f1 ... f8, leaf.
#    Names are demangled (legacy mangling, hash left out), or v0-mangled.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_program chain-rust "rustc"

# A function of the crate "chain", demangled or v0-mangled.
rs() {
	printf '(?:chain::%s|_RNv[0-9A-Za-z_]*5chain%d%s)' "$1" "${#1}" "$1"
}
chain="{START};main;(?:[^;]*(?:std|core)[^;]*;){1,8}$(rs main)"
for f in f1 f2 f3 f4 f5 f6 f7 f8 leaf; do
	chain+=";$(rs $f)"
done

profile rust "$PROGRAMS/chain-rust" 2
check stats "$tmp/rust.json" --min-walked 0.99
leaf=$(grep -o -m1 -E '(chain::leaf|_RNv[0-9A-Za-z_]*5chain4leaf)( |;)' "$tmp/rust.folded" |
	tr -d ' ;')
check stacks "$tmp/rust.folded" --comm chain-rust --leaf "${leaf:-chain::leaf}" \
	--expect "$chain" --min-ratio 0.99 --min-samples 200
finish

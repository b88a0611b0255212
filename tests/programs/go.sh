#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# chain.go (main.main -> main.f1 -> ... -> main.f8 -> main.leaf,
# //go:noinline) built by `go build`: Go keeps frame pointers and writes
# .debug_frame (no .eh_frame); its threads are started by runtime.clone, not
# by glibc. perf cannot unwind it (no .eh_frame), so the chain is the
# reference. Checks:
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples with user frames begin at a root of a Go
#    process: runtime.goexit (a goroutine), runtime.rt0_go or runtime.mstart
#    (the system stack of the first or of another thread; runtime.clone
#    below it where frame pointers lead there);
#  - at least 99% of the samples in main.leaf have exactly the whole chain
#    on the main goroutine: runtime.goexit;runtime.main;main.main;main.f1...
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_program chain-go "go (package golang-go)"

chain='runtime\.goexit(?:\.abi0)?;runtime\.main;main\.main'
for f in f1 f2 f3 f4 f5 f6 f7 f8 leaf; do
	chain+=";main\\.$f"
done

profile go "$PROGRAMS/chain-go" 2
check stats "$tmp/go.json" --min-walked 0.99
check roots "$tmp/go.folded" --root 'runtime\.(?:goexit|rt0_go|mstart|clone)(?:\.abi0)?' \
	--min-ratio 0.99
check stacks "$tmp/go.folded" --comm chain-go --leaf main.leaf --expect "$chain" \
	--min-ratio 0.99 --min-samples 200
finish

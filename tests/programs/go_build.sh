#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `go build -a` of a small program (goasm/), which rebuilds the standard
# library it needs: the go command, the compiler, the assembler and the
# linker of the Go installation, stripped binaries (no symbols, no
# .eh_frame, no .debug_frame), as a user meets them. Without cgo, every
# process is Go's. unwprof walks them with the SP deltas of their
# .gopclntab (core/unwind/table_go.h), and goes on from the system stack
# where Go switches to it (bpf/unwind_go.h). Checks:
#  - the build succeeds under record;
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples with user frames begin at a root of a Go
#    process: runtime.goexit (a goroutine), runtime.mstart (a thread's
#    system stack), runtime.rt0_go (the first thread's) or _rt0_amd64*
#    (the entry point, before it), or of the git that go runs to stamp
#    its version (_start, a thread's clone3). Samples inside execve, whose
#    old stack is gone, are left out. 99.85% do: the rest are mostly
#    threads being created (runtime.clone) and a few unnamed frames.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool go "golang-go"

cd "$programs_src/goasm" || exit 1
export GOCACHE="$tmp/go-cache" GOPATH="$tmp/go-path" GO111MODULE=on GOFLAGS= \
	GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0
# profile, with the time a rebuild of the standard library takes on 2 loaded cores
echo "\$ unwprof record -F 999 -- go build -a -o $tmp/goasm ." >&2
python3 "$e2e" run --timeout 300 --out "$tmp/go-build.out" --err "$tmp/go-build.err" \
	--rc "$tmp/go-build.rc" -- "$UNWPROF" record -F 999 -o "$tmp/go-build.folded" \
	--stats-json "$tmp/go-build.json" -- go build -a -o "$tmp/goasm" . || fails=$((fails + 1))
rc=$(cat "$tmp/go-build.rc" 2> /dev/null || echo -1)
show_log "$tmp/go-build.err"
expect_rc 0
check stats "$tmp/go-build.json" --min-walked 0.99
check roots "$tmp/go-build.folded" \
	--root '(?:runtime\.(?:goexit|mstart|rt0_go)|_rt0_amd64(?:_linux)?)(?:\.abi0)?' \
	--root '_start' --root '{THREAD}' --min-ratio 0.99 --min-samples 1000
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# goasm (goasm/: main.go, spin_amd64.s) spends its time in two assembly
# leaves that keep no frame pointer: its own spin, which counts in BP, on
# the main goroutine, and crypto/sha256's block on another. A walk by
# frame pointers loses the callers of both; Go's own traceback finds them
# from the SP deltas of .gopclntab, and so must unwprof's table
# (core/unwind/table_go.h). Built twice by `go build`: as Go builds it
# (symbols, .debug_frame) and stripped (-ldflags='-s -w': neither, the
# pclntab alone). The call chains are goasm's own source. Checks, for each:
#  - at least 99% of the samples were walked to the bottom (--stats-json);
#  - at least 99% of the samples with user frames begin at a root of a Go
#    process: runtime.goexit (a goroutine), runtime.mstart (a thread's
#    system stack), runtime.rt0_go (the first thread's) or _rt0_amd64*
#    (the entry point, before it);
#  - at least 99% of the samples in spin have exactly its chain,
#    runtime.goexit;runtime.main;main.main;main.work;main.spin, and as many
#    of those in sha256's block the hasher goroutine's,
#    runtime.goexit;main.main.func1;main.hasher;crypto/sha256.Sum256;...;block.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

need_tool go "golang-go"
[ "$(go env GOARCH)" = amd64 ] || e2e_skip "goasm's leaf is amd64 assembly"

# Names in the ELF symbols of assembly functions carry Go's ABI suffix.
abi='(?:\.abi0)?'
spin="runtime\\.goexit$abi;runtime\\.main;main\\.main;main\\.work;main\\.spin$abi"
block="runtime\\.goexit$abi;main\\.main\\.func1;main\\.hasher;crypto/sha256\\.Sum256"
block+=";crypto/sha256\\.\\(\\*digest\\)\\.Write;crypto/sha256\\.block$abi"
roots="(?:runtime\\.(?:goexit|mstart|rt0_go)|_rt0_amd64(?:_linux)?)$abi"

for variant in plain stripped; do
	flags=()
	[ "$variant" = stripped ] && flags=(-ldflags=-s\ -w)
	echo "\$ go build ${flags[*]} -o $tmp/goasm-$variant ($programs_src/goasm)" >&2
	(cd "$programs_src/goasm" && GOCACHE="$PROGRAMS/go-cache" GOPATH="$PROGRAMS/go-path" \
		GO111MODULE=on GOFLAGS= GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 \
		go build "${flags[@]}" -o "$tmp/goasm-$variant" .) || {
		echo "FAIL: go build" >&2
		exit 1
	}
	name=goasm-$variant
	profile "$name" "$tmp/$name" 4
	check stats "$tmp/$name.json" --min-walked 0.99
	check roots "$tmp/$name.folded" --root "$roots" --min-ratio 0.99
	for leaf in main.spin main.spin.abi0; do
		grep -q ";$leaf [0-9]*$" "$tmp/$name.folded" && break
	done
	check stacks "$tmp/$name.folded" --comm "$name" --leaf "$leaf" --expect "$spin" \
		--min-ratio 0.99 --min-samples 100
	for leaf in crypto/sha256.block crypto/sha256.block.abi0; do
		grep -q ";$leaf [0-9]*$" "$tmp/$name.folded" && break
	done
	check stacks "$tmp/$name.folded" --comm "$name" --leaf "$leaf" --expect "$block" \
		--min-ratio 0.99 --min-samples 100
done
finish

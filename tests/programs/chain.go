// SPDX-License-Identifier: GPL-2.0-only

// chain-go [SECONDS]: main.main -> main.f1 -> ... -> main.f8 -> main.leaf,
// repeated for SECONDS (default 3): the Go twin of tests/workloads/chain.c.
//
// leaf does most of the work, every f<n> a little, so nearly all samples stop
// in leaf with the whole chain under it, on the main goroutine. Built with
// plain `go build`. //go:noinline keeps each function a frame; Go never
// turns a call into a tail jump.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink uint64

// mix is a few rounds of integer mixing: the work each frame does.
func mix(x uint64, rounds int) uint64 {
	for i := 0; i < rounds; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	return x
}

//go:noinline
func leaf(x uint64) uint64 { return mix(x, 20000) }

//go:noinline
func f8(x uint64) uint64 { x = mix(x, 16); return leaf(x) + x }

//go:noinline
func f7(x uint64) uint64 { x = mix(x, 16); return f8(x) + x }

//go:noinline
func f6(x uint64) uint64 { x = mix(x, 16); return f7(x) + x }

//go:noinline
func f5(x uint64) uint64 { x = mix(x, 16); return f6(x) + x }

//go:noinline
func f4(x uint64) uint64 { x = mix(x, 16); return f5(x) + x }

//go:noinline
func f3(x uint64) uint64 { x = mix(x, 16); return f4(x) + x }

//go:noinline
func f2(x uint64) uint64 { x = mix(x, 16); return f3(x) + x }

//go:noinline
func f1(x uint64) uint64 { x = mix(x, 16); return f2(x) + x }

func main() {
	secs := 3.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "chain-go: bad run time '%s' (seconds)\n", os.Args[1])
			os.Exit(64)
		}
		secs = v
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	x := uint64(1)
	for time.Now().Before(end) {
		x = f1(x)
	}
	sink = x
}

// SPDX-License-Identifier: GPL-2.0-only
//
// Writes a CPU profile with Go's runtime/pprof, the most common pprof
// producer, for the report tests: `cpuprof OUT.pb.gz`. It spins in
// spinOuter -> spinInner for about half a second of CPU time.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"
)

var sink uint64

//go:noinline
func spinInner(n uint64) uint64 {
	x := n
	for i := 0; i < 1000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func cpuTime() time.Duration {
	var ru syscall.Rusage

	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:noinline
func spinOuter(cpu time.Duration, deadline time.Time) {
	start := cpuTime()
	for cpuTime()-start < cpu && time.Now().Before(deadline) {
		for i := 0; i < 100; i++ {
			sink += spinInner(sink)
		}
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cpuprof OUT.pb.gz")
		os.Exit(64)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	spinOuter(500*time.Millisecond, time.Now().Add(10*time.Second))
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

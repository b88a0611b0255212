// SPDX-License-Identifier: GPL-2.0-only

// goclock SECONDS: a goroutine that reads the clocks in a loop, the wall
// and monotonic ones of time.Now and the monotonic one of time.Since,
// through the vDSO's clock_gettime, which Go calls on the thread's system
// stack: time.now and runtime.nanotime1 move the stack pointer to g0's
// stack for the call, and keep their caller's pc and sp in m.vdsoPC and
// m.vdsoSP meanwhile.
//
// At the end it prints on stderr "goclock: read N times".
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func clockLoop(end time.Time) int {
	start := time.Now()
	n := 0
	for ; time.Now().Before(end); n++ {
		if time.Since(start) < 0 {
			break
		}
	}
	return n
}

func main() {
	secs, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if len(os.Args) != 2 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: goclock SECONDS")
		os.Exit(2)
	}
	n := clockLoop(time.Now().Add(time.Duration(secs) * time.Second))
	fmt.Fprintf(os.Stderr, "goclock: read %d times\n", n)
}

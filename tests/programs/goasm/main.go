// SPDX-License-Identifier: GPL-2.0-only

// goasm spends its time in assembly leaves that keep no frame pointer: spin
// (spin_amd64.s, which uses BP as a counter) on the main goroutine, and
// crypto/sha256's block function on another, so that a frame-pointer walk
// loses both callers. It runs for the seconds its argument says (default 2)
// and prints how many rounds each leaf ran.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"time"
)

// spin adds n odd numbers in a loop of its own, with BP clobbered (spin_amd64.s).
func spin(n uint64) uint64

//go:noinline
func work(deadline time.Time) (rounds int) {
	for time.Now().Before(deadline) {
		spin(1 << 20)
		rounds++
	}
	return rounds
}

//go:noinline
func hasher(deadline time.Time, done chan<- int) {
	buf := make([]byte, 1<<16)
	rounds := 0
	for time.Now().Before(deadline) {
		sum := sha256.Sum256(buf)
		buf[0] = sum[0]
		rounds++
	}
	done <- rounds
}

func main() {
	seconds := 2.0
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			seconds = s
		}
	}
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	done := make(chan int)
	go hasher(deadline, done)
	spun := work(deadline)
	fmt.Printf("spin %d, sha256 %d\n", spun, <-done)
}

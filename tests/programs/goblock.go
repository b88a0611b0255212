// SPDX-License-Identifier: GPL-2.0-only

// goblock SECONDS: goroutines that wait, for record --off-cpu.
//
//   - main.napper calls main.napOnce, a blocking nanosleep(2) of 5 ms: the
//     goroutine keeps its thread (M) while it sleeps in the kernel, so its
//     own frames are the stack of the block;
//   - main.receiver waits in main.receiveOnce on a channel that main.sender
//     fills every 8 ms: a parked goroutine has no thread, and the thread
//     that ran it waits in Go's scheduler (runtime.stopm, runtime.futex) or
//     its netpoller: that thread's stack is the stack of the block.
//
// At the end it prints on stderr "goblock: napOnce waited NS ns", the time
// measured around the nanosleeps.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

//go:noinline
func napOnce() {
	ts := syscall.Timespec{Nsec: 5000000}
	syscall.Nanosleep(&ts, nil)
}

func napper(end time.Time, done chan<- time.Duration) {
	var waited time.Duration
	for time.Now().Before(end) {
		t0 := time.Now()
		napOnce()
		waited += time.Since(t0)
	}
	done <- waited
}

//go:noinline
func receiveOnce(c <-chan int) bool {
	_, ok := <-c
	return ok
}

func receiver(c <-chan int, done chan<- time.Duration) {
	for receiveOnce(c) {
	}
	done <- 0
}

func sender(end time.Time, c chan<- int) {
	for time.Now().Before(end) {
		time.Sleep(8 * time.Millisecond)
		c <- 1
	}
	close(c)
}

func main() {
	seconds := 2.0
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			seconds = s
		}
	}
	end := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	naps, received := make(chan time.Duration), make(chan time.Duration)
	c := make(chan int)
	go napper(end, naps)
	go receiver(c, received)
	go sender(end, c)
	<-received
	fmt.Fprintf(os.Stderr, "goblock: napOnce waited %d ns\n", (<-naps).Nanoseconds())
}

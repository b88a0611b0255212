// SPDX-License-Identifier: GPL-2.0-only

// gosignals SECONDS: a goroutine that signals its own thread, again and
// again, so that many of its samples are in Go's signal handler:
// runtime.sigtramp runs on the thread's signal stack, and returns through
// Go's own restorer (runtime.sigreturn__sigaction, runtime.sigreturn
// before Go 1.21), where the kernel's signal frame holds the interrupted
// registers: those of main.raise's system call, under main.signalLoop. The
// signal is SIGURG, which Go's runtime takes as a request to preempt the
// goroutine and otherwise ignores.
//
// At the end it prints on stderr "gosignals: raised N".
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

//go:noinline
func raise(pid, tid int) {
	syscall.Tgkill(pid, tid, syscall.SIGURG)
}

//go:noinline
func signalLoop(end time.Time) int {
	runtime.LockOSThread()
	pid, tid := os.Getpid(), syscall.Gettid()
	n := 0
	// the clock read seldom: its vDSO call runs on the system stack
	for time.Now().Before(end) {
		for i := 0; i < 256; i++ {
			raise(pid, tid)
		}
		n += 256
	}
	return n
}

func main() {
	secs, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if len(os.Args) != 2 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: gosignals SECONDS")
		os.Exit(2)
	}
	n := signalLoop(time.Now().Add(time.Duration(secs) * time.Second))
	fmt.Fprintf(os.Stderr, "gosignals: raised %d\n", n)
}

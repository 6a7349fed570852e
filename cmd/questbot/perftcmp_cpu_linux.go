//go:build linux

package main

import (
	"syscall"
	"time"
)

// threadCPU returns the user CPU time the calling thread has used (the caller locks its goroutine
// to the thread): a perft on it is timed without the runtime's other threads.
func threadCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano()), nil
}

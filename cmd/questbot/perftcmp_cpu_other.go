//go:build !linux

package main

import (
	"errors"
	"time"
)

// threadCPU returns the CPU time the process has used, where the system cannot tell a thread's
// own: perft runs on one goroutine and does not allocate, so it is nearly all that goroutine's.
func threadCPU() (time.Duration, error) {
	now, ok := cpuClock()
	if !ok {
		return 0, errors.New("no CPU clock on this system")
	}
	return now().Sub(time.Time{}), nil
}

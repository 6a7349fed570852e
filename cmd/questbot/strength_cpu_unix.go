//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuClock reads the CPU time (user and system) this process has used, as a time after the
// zero Time: a search timed by it gets its budget of a core's work however busy the machine is.
// ok is false where the system cannot tell.
func cpuClock() (now func() time.Time, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return nil, false
	}
	return func() time.Time {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Time{}.Add(time.Duration(ru.Utime.Nano() + ru.Stime.Nano()))
	}, true
}

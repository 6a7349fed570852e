//go:build !unix

package main

import "time"

// cpuClock is not available here: searches are timed by the wall clock.
func cpuClock() (now func() time.Time, ok bool) { return nil, false }

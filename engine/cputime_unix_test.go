//go:build unix

package engine

import "syscall"

// cpuSeconds returns the CPU time (user + system) used by this process, so
// benchmarks can report throughput that does not depend on how busy the
// machine is with other work.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

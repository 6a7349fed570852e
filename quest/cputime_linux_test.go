package quest_test

import "syscall"

// threadCPU returns the CPU time used so far by the calling OS thread, in seconds; the
// benchmark locks its goroutine to its thread, so this is the CPU time of the replay itself,
// whatever else the machine runs.
func threadCPU() float64 {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

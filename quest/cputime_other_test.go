//go:build !linux

package quest_test

// threadCPU is not available here; the benchmark then reports no CPU figure.
func threadCPU() float64 { return 0 }

//go:build !unix

package engine

// cpuSeconds is not available here; benchmarks then report wall time only.
func cpuSeconds() float64 { return 0 }

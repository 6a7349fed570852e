package qms

// SetLineLimit lowers the bound on the lines a compilation handles (MaxLines) for the fuzz
// tests, and returns what restores it.
func SetLineLimit(n int) (restore func()) {
	old := lineLimit.Swap(int64(n))
	return func() { lineLimit.Store(old) }
}

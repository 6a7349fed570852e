package qms

// SetLineLimit lowers the bound on the lines a compilation handles (maxLines) for the fuzz
// tests, and returns what restores it.
func SetLineLimit(n int) (restore func()) {
	old := lineLimit.Swap(int64(n))
	return func() { lineLimit.Store(old) }
}

// For the tests of package qms_test.
var Compile = compile

// MaxErrors is maxErrors, for the tests of package qms_test.
const MaxErrors = maxErrors

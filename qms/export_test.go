package qms

// SetLineLimit lowers the steps of every compilation (Limits.Steps) for the fuzz tests, and
// returns what restores it.
func SetLineLimit(n int) (restore func()) {
	old := stepLimit.Swap(int64(n))
	return func() { stepLimit.Store(old) }
}

// For the tests of package qms_test.
var Compile = compile

// MaxErrors is maxErrors, for the tests of package qms_test.
const MaxErrors = maxErrors

// Steps compiles src within lim and returns the steps of work it took, with its error.
func Steps(src []byte, lim Limits) (int, error) {
	c := newCompiler(nil)
	c.main = "steps.qms"
	c.setLimits(lim)
	err := c.run(func() { c.finish(c.split(c.main, src, nil)) })
	return c.steps, err
}

package scripts

// MaxSteps is maxSteps, for the tests of package scripts_test.
const MaxSteps = maxSteps

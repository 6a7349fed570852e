package migrations

// For the tests of package migrations_test.
var (
	Current = current
	Latest  = latest
)

package main

import "testing"

// Ensure the rate is read from pgbench's summary as PostgreSQL 14 to 16 print it, and a run that
// printed none is an error.
func TestParseTPS(t *testing.T) {
	for _, c := range []struct {
		out  string
		want float64
	}{
		{"latency average = 2.881 ms\ninitial connection time = 9.313 ms\ntps = 2776.861123 (without initial connection time)\n", 2776.861123},
		{"tps = 3301.2 (including connections establishing)\ntps = 3365.5 (excluding connections establishing)\n", 3365.5},
	} {
		got, err := parseTPS([]byte(c.out))
		if err != nil || got != c.want {
			t.Errorf("parseTPS(%q) = %v, %v; want %v", c.out, got, err, c.want)
		}
	}
	if _, err := parseTPS([]byte("pgbench: error: connection refused\n")); err == nil {
		t.Error("no rate: no error")
	}
}

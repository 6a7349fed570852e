package relay

import "testing"

// Ensure numbers are written with their thousands apart, as the progress report shows them.
func TestCount(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1200: "1\u00a0200", 5000: "5\u00a0000", 1234567: "1\u00a0234\u00a0567", -5: "-5"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// Ensure only the relay's own, well-formed button data is taken.
func TestParseButton(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data string
		verb string
		id   int64
		ok   bool
	}{
		{"r:send:12", "send", 12, true},
		{"r:cancel:1", "cancel", 1, true},
		{"r:stop:9223372036854775807", "stop", 9223372036854775807, true},
		{"r:stop:0", "", 0, false},
		{"r:stop:-3", "", 0, false},
		{"r:drop:3", "", 0, false},
		{"r:send:", "", 0, false},
		{"r:send:1:2", "", 0, false},
		{"r:send:99999999999999999999", "", 0, false},
		{"m:1:2:3", "", 0, false},
		{"q:1:2:3", "", 0, false},
		{"", "", 0, false},
	} {
		verb, id, ok := parseButton(c.data)
		if ok != c.ok || (ok && (verb != c.verb || id != c.id)) {
			t.Errorf("parseButton(%q) = %q, %d, %v; want %q, %d, %v", c.data, verb, id, ok, c.verb, c.id, c.ok)
		}
	}
}

package formula

import (
	"slices"
	"testing"
)

// Ensure Params lists each parameter a formula reads once, in order, and ZeroDivisors names the
// divisors that are or may be drawn as zero, and no other.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		src    string
		params []int
		zero   []string
	}{
		{"1 + 2", nil, nil},
		{"[p3] + [p1] * [p3]", []int{0, 2}, nil},
		{"[p0] div 2", []int{-1}, nil},
		{"[p1] / 0", []int{0}, []string{"0"}},
		{"10 div -0 + 5 mod 0,0", nil, []string{"-0", "0"}},
		{"[p1] div [0..3]", []int{0}, []string{"[0..3]"}},
		{"[p1] div [-2..-1; 4]", []int{0}, nil},
		{"[p1] div [0,5..2]", []int{0}, []string{"[0.5..2]"}},
		{"7 mod (0 to 5)", nil, []string{"0 to 5"}},
		{"7 mod (3 to 5)", nil, nil},
		{"7 mod (-3 to -1)", nil, []string{"-3 to -1"}},
		{"7 / [p2]", []int{1}, nil},
		{"7 / 0,5", nil, nil},
	} {
		e, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := e.Params(); !slices.Equal(got, c.params) {
			t.Errorf("%q: Params %v, want %v", c.src, got, c.params)
		}
		if got := e.ZeroDivisors(); !slices.Equal(got, c.zero) {
			t.Errorf("%q: ZeroDivisors %q, want %q", c.src, got, c.zero)
		}
	}
	var none *Expr
	if none.Params() != nil || none.ZeroDivisors() != nil {
		t.Error("a nil formula reads something")
	}
}

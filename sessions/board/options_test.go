package board

import (
	"errors"
	"testing"
)

func TestOptionsRoundTrip(t *testing.T) {
	tests := []struct {
		o    Options
		text string
	}{
		{Options{}, ""},
		{Options{PlyLimit: 200}, "plies=200"},
		{Options{Diagonals: true, FoxWinThreshold: 5, GeeseBackward: true}, "backward=1&diagonals=1&foxwins=5"},
		{Options{Start: "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", FirstPlayer: 2}, "first=2&start=4k3%2F8%2F8%2F8%2F8%2F8%2F8%2F3QK3+w+-+-+0+1"},
		{Options{LongestCapture: true, FoxMustCapture: true}, "longest=1&mustcapture=1"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.text {
			t.Errorf("%+v: %q, want %q", tt.o, got, tt.text)
		}
		got, err := ParseOptions(tt.text)
		if err != nil || got != tt.o {
			t.Errorf("ParseOptions(%q) = %+v, %v", tt.text, got, err)
		}
	}
	if o, err := ParseOptions("diagonals=true&longest=false"); err != nil || o != (Options{Diagonals: true}) || o.String() != "diagonals=1" {
		t.Errorf("lenient booleans: %+v %v", o, err)
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, s := range []string{
		"colour=red",
		"plies=many",
		"plies=-1",
		"first=3",
		"diagonals=yes-please",
		"plies=10&plies=20",
		"foxwins=-2",
		"%zz",
		string(make([]byte, maxOptionsLen+1)),
	} {
		if _, err := ParseOptions(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseOptions(%.20q): %v, want ErrInvalid", s, err)
		}
	}
}

func TestOptionsBuildGames(t *testing.T) {
	tests := []struct {
		variant string
		o       Options
		ok      bool
	}{
		{"foxgeese15", Options{Diagonals: true, LongestCapture: true, FoxMustCapture: true, GeeseBackward: true, FoxWinThreshold: 4}, true},
		{"russian", Options{Diagonals: true}, false},
		{"foxgeese13", Options{FoxWinThreshold: 40}, false},
		{"chase", Options{FirstPlayer: 2, PlyLimit: 100}, true},
	}
	for _, tt := range tests {
		g, err := tt.o.newGame(tt.variant, 1)
		if tt.ok && err != nil {
			t.Errorf("%s %+v: %v", tt.variant, tt.o, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %+v: %v, want ErrInvalid", tt.variant, tt.o, err)
		}
		if tt.ok && tt.o.FirstPlayer == 2 && g.ToMove() != 1 {
			t.Errorf("%s: first player %d", tt.variant, g.ToMove())
		}
	}
}

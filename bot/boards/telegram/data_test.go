package telegram

import (
	"errors"
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// Ensure every press reads back as written, within Telegram's 64 bytes even for the longest
// tapped path, and malformed data is refused as forged.
func TestPressData(t *testing.T) {
	t.Parallel()
	long := make([]int, 21) // the longest capture chain of International draughts
	for i := range long {
		long[i] = i % maxOffered
	}
	for _, p := range []press{
		{board: 1, ply: 0, op: opTap},
		{board: 42, ply: 7, op: opTap, path: []int{3, 0}},
		{board: 9_999_999_999, ply: 599, op: opTap, path: long},
		{board: 9_999_999_999, ply: 599, op: opChoose, path: long, choice: 3},
		{board: 5, ply: 12, op: opUndo},
		{board: 5, ply: 12, op: opResignYes},
		{board: 5, op: opView},
		{board: 5, op: opCancel},
	} {
		data := p.data()
		if len(data) > 64 {
			t.Errorf("%+v: %d bytes", p, len(data))
		}
		got, err := parsePress(data)
		if err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if got.board != p.board || got.ply != p.ply || got.op != p.op || got.choice != p.choice ||
			encodePath(got.path) != encodePath(p.path) {
			t.Errorf("%q read back as %+v, want %+v", data, got, p)
		}
	}
	for _, data := range []string{
		"", "g", "g:", "g:1:2", "g:1:2:", "q:1:2:u", "g:x:2:u", "g:0:2:u", "g:-4:2:u", "g:1:-1:u",
		"g:1:99999:u", "g:1:2:z", "g:1:2:u1", "g:1:2:s!", "g:1:2:c01", "g:1:2:c.1", "g:1:2:c0.x",
		"g:1:2:c0.64", "g:1:2:s:x", "g:1:2:" + strings.Repeat("s", 200),
	} {
		if _, err := parsePress(data); !errors.Is(err, errForged) {
			t.Errorf("%q: %v, want errForged", data, err)
		}
	}
}

// Ensure a tapped path replays through the engine's steps, and a path no keyboard offers is
// refused.
func TestResolveEntry(t *testing.T) {
	t.Parallel()
	g, err := engine.NewGame("russian")
	if err != nil {
		t.Fatal(err)
	}
	e, err := resolveEntry(g, nil)
	if err != nil || strings.Join(e.steps.Next, " ") != "a3 c3 e3 g3" {
		t.Fatalf("no squares tapped: %+v, %v", e, err)
	}
	e, err = resolveEntry(g, []int{1}) // c3
	if err != nil || strings.Join(e.squares, "-") != "c3" || strings.Join(e.steps.Next, " ") != "b4 d4" {
		t.Fatalf("c3 tapped: %+v, %v", e, err)
	}
	e, err = resolveEntry(g, []int{1, 1}) // c3, d4
	if m, ok := e.steps.Done(); err != nil || !ok || m.String() != "c3-d4" {
		t.Fatalf("c3, d4 tapped: %+v, %v", e, err)
	}
	for _, path := range [][]int{{4}, {1, 2}, {1, 1, 0}} {
		if _, err := resolveEntry(g, path); !errors.Is(err, errForged) {
			t.Errorf("path %v: %v, want errForged", path, err)
		}
	}
}

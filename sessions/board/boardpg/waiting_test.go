package boardpg

import (
	"context"
	"testing"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure the boards of a list still waiting for an opponent past a time are found, oldest
// first and at most the limit, and no others: not one opened later, not one joined, not one
// outside the list.
func TestWaitingAmong(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first := f.create(t, f.spec("chess", "none"), at(0))
	second := f.create(t, f.spec("russian", "none"), at(time.Hour))
	later := f.create(t, f.spec("chess", "none"), at(3*time.Hour))
	// Waiting since the start too, but not in the list.
	f.create(t, f.spec("chess", "none"), at(0))
	ids := []int64{later.ID, second.ID, first.ID}
	waiting := func(before time.Time, limit int) []board.Ref {
		t.Helper()
		var refs []board.Ref
		f.must(t, func(s *Store) error {
			var err error
			refs, err = s.WaitingAmong(ctx, ids, before, limit)
			return err
		})
		return refs
	}
	if refs := waiting(at(2*time.Hour), 10); len(refs) != 2 || refs[0].ID != first.ID || refs[1].ID != second.ID || refs[0].Service != f.service {
		t.Errorf("WaitingAmong = %+v, want the first two boards", refs)
	}
	if refs := waiting(at(2*time.Hour), 1); len(refs) != 1 || refs[0].ID != first.ID {
		t.Errorf("WaitingAmong with a limit of 1 = %+v, want the first board", refs)
	}
	if refs := waiting(at(30*time.Minute), 10); len(refs) != 1 || refs[0].ID != first.ID {
		t.Errorf("WaitingAmong before the second = %+v, want the first board", refs)
	}
	// A board joined waits no more.
	f.act(t, first.ID, func(b *board.Board) error { _, err := b.Join(bob, at(time.Minute)); return err })
	if refs := waiting(at(2*time.Hour), 10); len(refs) != 1 || refs[0].ID != second.ID {
		t.Errorf("WaitingAmong after a join = %+v, want the second board", refs)
	}
}

package boardpg

import (
	"context"
	"testing"
	"time"
)

// Ensure a board's players are on the web from their marks, each seat alone, a later mark
// replacing the time, and that leaving the web forgets the seat's mark only (twice is no error).
func TestWebMarks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.game(t, "russian", "none")
	f.must(t, func(s *Store) error {
		if marks, err := s.WebMarks(ctx, b.ID); err != nil || !marks[0].IsZero() || !marks[1].IsZero() {
			t.Errorf("WebMarks before any = %v, %v; want none", marks, err)
		}
		if err := s.MarkWeb(ctx, b.ID, 0, at(time.Minute)); err != nil {
			return err
		}
		if err := s.MarkWeb(ctx, b.ID, 0, at(2*time.Minute)); err != nil {
			return err
		}
		return s.MarkWeb(ctx, b.ID, 1, at(3*time.Minute))
	})
	f.must(t, func(s *Store) error {
		marks, err := s.WebMarks(ctx, b.ID)
		if err != nil || !marks[0].Equal(at(2*time.Minute)) || !marks[1].Equal(at(3*time.Minute)) {
			t.Errorf("WebMarks = %v, %v; want %v and %v", marks, err, at(2*time.Minute), at(3*time.Minute))
		}
		for range 2 {
			if err := s.LeaveWeb(ctx, b.ID, 1); err != nil {
				return err
			}
		}
		marks, err = s.WebMarks(ctx, b.ID)
		if err != nil || !marks[0].Equal(at(2*time.Minute)) || !marks[1].IsZero() {
			t.Errorf("WebMarks after seat 1 left = %v, %v; want %v and none", marks, err, at(2*time.Minute))
		}
		return nil
	})
}

package boardpg

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// webMarks are the seats' times on the web of a board's Attention.
func webMarks(ctx context.Context, s *Store, b *board.Board) ([2]time.Time, error) {
	a, err := s.Attention(ctx, b.ID, [2]int64{b.Seats[0].User, b.Seats[1].User})
	return [2]time.Time{a[0].Web, a[1].Web}, err
}

// Ensure a board's players are on the web from their marks, each seat alone, a later mark
// replacing the time, and that leaving the web forgets the seat's mark only (twice is no error).
func TestWebMarks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.game(t, "russian", "none")
	f.must(t, func(s *Store) error {
		if marks, err := webMarks(ctx, s, b); err != nil || !marks[0].IsZero() || !marks[1].IsZero() {
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
		marks, err := webMarks(ctx, s, b)
		if err != nil || !marks[0].Equal(at(2*time.Minute)) || !marks[1].Equal(at(3*time.Minute)) {
			t.Errorf("WebMarks = %v, %v; want %v and %v", marks, err, at(2*time.Minute), at(3*time.Minute))
		}
		for range 2 {
			if err := s.LeaveWeb(ctx, b.ID, 1); err != nil {
				return err
			}
		}
		marks, err = webMarks(ctx, s, b)
		if err != nil || !marks[0].Equal(at(2*time.Minute)) || !marks[1].IsZero() {
			t.Errorf("WebMarks after seat 1 left = %v, %v; want %v and none", marks, err, at(2*time.Minute))
		}
		return nil
	})
}

// Ensure Attention gives each seat the notification setting of the user asked for it, as
// NotifySetting reads it (quiet hours only with both ends), the zero one for a user who never
// chose and for none, with the seats' marks on the web.
func TestAttentionSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.game(t, "russian", "none")
	quiet := board.NotifySetting{Delay: "1h", Quiet: true, From: 22, To: 7, Offset: 180}
	f.must(t, func(s *Store) error {
		if err := s.SaveNotifySetting(ctx, alice, quiet); err != nil {
			return err
		}
		if err := s.SaveNotifySetting(ctx, carol, board.NotifySetting{Delay: "never", Offset: -60}); err != nil {
			return err
		}
		return s.MarkWeb(ctx, b.ID, 1, at(time.Minute))
	})
	cases := []struct {
		users [2]int64
		want  [2]board.Attention
	}{
		{[2]int64{alice, bob}, [2]board.Attention{{Notify: quiet}, {Web: at(time.Minute)}}},
		{[2]int64{bob, carol}, [2]board.Attention{{}, {Web: at(time.Minute), Notify: board.NotifySetting{Delay: "never", Offset: -60}}}},
		{[2]int64{board.BotUser, alice}, [2]board.Attention{{}, {Web: at(time.Minute), Notify: quiet}}},
	}
	f.must(t, func(s *Store) error {
		for _, c := range cases {
			got, err := s.Attention(ctx, b.ID, c.users)
			if err != nil {
				return err
			}
			for seat := range got {
				if !got[seat].Web.Equal(c.want[seat].Web) || got[seat].Notify != c.want[seat].Notify {
					t.Errorf("Attention(%v) seat %d = %+v; want %+v", c.users, seat, got[seat], c.want[seat])
				}
			}
			for seat, u := range c.users {
				if set, err := s.NotifySetting(ctx, u); err != nil || set != got[seat].Notify {
					t.Errorf("NotifySetting(%d) = %+v, %v; Attention's %+v", u, set, err, got[seat].Notify)
				}
			}
		}
		return nil
	})
}

// Ensure AppendEvents carries out the notification policy's writes with the events: a pend
// replaces the seat's pending notification, a drop removes it, the other seat's untouched; the
// events are numbered in order.
func TestAppendEventsNotices(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.game(t, "russian", "none")
	old := board.Notice{Seat: 0, Ply: 1, Kind: "move", Actor: 1, Due: at(time.Hour)}
	f.must(t, func(s *Store) error {
		if err := s.PendNotice(ctx, b.ID, old, at(0)); err != nil {
			return err
		}
		return s.PendNotice(ctx, b.ID, board.Notice{Seat: 1, Ply: 1, Kind: "move", Actor: 0, Due: at(time.Hour)}, at(0))
	})
	pend := board.Notice{Seat: 0, Ply: 2, Kind: "offer", Actor: -1, Due: at(2 * time.Hour)}
	evs := []EventRow{
		{Board: b.ID, Kind: "moved", Seat: 1, Actor: 1, Source: "web", Ply: 2, Heard: [2]string{"later", "unheard"}, Data: json.RawMessage(`{}`), At: at(time.Minute)},
		{Board: b.ID, Kind: "draw_offered", Seat: 1, Actor: 1, Source: "web", Ply: 2, Heard: [2]string{"later", "unheard"}, At: at(time.Minute)},
	}
	f.must(t, func(s *Store) error {
		return s.AppendEvents(ctx, evs, []board.NoticeWrite{
			{Board: b.ID, Notice: pend, Now: at(time.Minute)},
			{Board: b.ID, Notice: board.Notice{Seat: 1}, Drop: true},
		})
	})
	if evs[0].ID == 0 || evs[1].ID <= evs[0].ID {
		t.Errorf("the events are numbered %d, %d; want increasing", evs[0].ID, evs[1].ID)
	}
	f.must(t, func(s *Store) error {
		n, ok, err := s.TakeNotice(ctx, b.ID, 0)
		if err != nil || !ok || n.Ply != pend.Ply || n.Kind != pend.Kind || n.Actor != pend.Actor || !n.Due.Equal(pend.Due) {
			t.Errorf("seat 0's notification = %+v, %v, %v; want %+v", n, ok, err, pend)
		}
		if _, ok, err := s.TakeNotice(ctx, b.ID, 1); err != nil || ok {
			t.Errorf("seat 1's notification is still there (%v, %v); want it dropped", ok, err)
		}
		if last, err := LastEvent(ctx, s.tx, b.ID); err != nil || last != evs[1].ID {
			t.Errorf("LastEvent = %d, %v; want %d", last, err, evs[1].ID)
		}
		return nil
	})
}

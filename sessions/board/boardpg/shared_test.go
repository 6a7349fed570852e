package boardpg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure the shared message of a board is recorded once (by board and by inline message), read
// back by either with how it shows the board (text or picture), takes its group message's id later, and that the challenges still waiting past
// a time are found, oldest first, and no others.
func TestShared(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	inline := f.create(t, f.spec("chess", "none"), at(0))
	group := f.create(t, f.spec("russian", "none"), at(time.Hour))
	plain := f.create(t, f.spec("chess", "none"), at(0))
	f.must(t, func(s *Store) error {
		if err := s.PlaceShared(ctx, Shared{Board: inline.ID, InlineMessageID: "im1", Invite: "code1"}); err != nil {
			return err
		}
		return s.PlaceShared(ctx, Shared{Board: group.ID, Chat: -100, Invite: "code2", Picture: true})
	})
	third := f.create(t, f.spec("chess", "none"), at(3*time.Hour))
	f.must(t, func(s *Store) error {
		return s.PlaceShared(ctx, Shared{Board: third.ID, Chat: -100, MessageID: 5, Invite: "c3"})
	})
	for name, sh := range map[string]Shared{
		"the same board":          {Board: inline.ID, InlineMessageID: "im2", Invite: "x"},
		"the same inline message": {Board: plain.ID, InlineMessageID: "im1", Invite: "x"},
		"the same group message":  {Board: plain.ID, Chat: -100, MessageID: 5, Invite: "x"},
	} {
		if err := f.try(func(s *Store) error { return s.PlaceShared(ctx, sh) }); !errors.Is(err, board.ErrFull) {
			t.Errorf("%s placed twice: %v", name, err)
		}
	}
	f.must(t, func(s *Store) error {
		got, ok, err := s.SharedByInline(ctx, "im1")
		if err != nil || !ok || got != (Shared{Board: inline.ID, InlineMessageID: "im1", Invite: "code1"}) {
			t.Errorf("SharedByInline = %+v, %v, %v", got, ok, err)
		}
		if _, ok, err := s.SharedOf(ctx, plain.ID); ok || err != nil {
			t.Errorf("a board played in its players' chats has a shared message: %v", err)
		}
		if err := s.SetSharedMessage(ctx, group.ID, 77); err != nil {
			return err
		}
		got, ok, err = s.SharedOf(ctx, group.ID)
		if err != nil || !ok || got != (Shared{Board: group.ID, Chat: -100, MessageID: 77, Invite: "code2", Picture: true}) {
			t.Errorf("SharedOf = %+v, %v, %v", got, ok, err)
		}
		if by, ok, err := s.SharedByMessage(ctx, -100, 77); err != nil || !ok || by != got {
			t.Errorf("SharedByMessage = %+v, %v, %v", by, ok, err)
		}
		if _, ok, err := s.SharedByMessage(ctx, -100, 78); ok || err != nil {
			t.Errorf("SharedByMessage of another message: %v, %v", ok, err)
		}
		refs, err := s.StaleChallenges(ctx, at(2*time.Hour), 10)
		if err != nil || len(refs) != 2 || refs[0].ID != inline.ID || refs[1].ID != group.ID || refs[0].Service != f.service {
			t.Errorf("StaleChallenges = %+v, %v", refs, err)
		}
		refs, err = s.StaleChallenges(ctx, at(30*time.Minute), 10)
		if err != nil || len(refs) != 1 || refs[0].ID != inline.ID {
			t.Errorf("StaleChallenges before the second = %+v, %v", refs, err)
		}
		return nil
	})
	// A board joined is no challenge any more.
	f.act(t, inline.ID, func(b *board.Board) error { _, err := b.Join(bob, at(time.Minute)); return err })
	f.must(t, func(s *Store) error {
		refs, err := s.StaleChallenges(ctx, at(2*time.Hour), 10)
		if err != nil || len(refs) != 1 || refs[0].ID != group.ID {
			t.Errorf("StaleChallenges after a join = %+v, %v", refs, err)
		}
		return nil
	})
}

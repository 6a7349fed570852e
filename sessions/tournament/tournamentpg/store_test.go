package tournamentpg

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/tournament"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// Ensure a tournament, its players and pairings round-trip, a player is paired once a round
// (ErrPaired), a result is recorded once, and the claims find what is due and skip what another
// transaction holds.
func TestStore(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	var service int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('t') RETURNING id`).Scan(&service); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id) VALUES (1, 1), (2, 2), (3, 3)`); err != nil {
		t.Fatal(err)
	}
	run := func(fn func(s *Store) error) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return fn(New(tx)) })
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	tt := &tournament.Tournament{Service: service, Variant: "russian", Control: "5+3", System: tournament.Arena,
		Duration: 30 * time.Minute, MaxPlayers: 8, StartsAt: t0.Add(time.Hour), State: tournament.Created, Creator: 1, Created: t0}
	must(run(func(s *Store) error { return s.Create(ctx, tt) }))
	must(run(func(s *Store) error {
		for _, u := range []int64{1, 2, 3} {
			if ok, err := s.Enter(ctx, tt.ID, tournament.Entrant{User: u, Joined: t0.Add(time.Duration(u) * time.Second)}); err != nil || !ok {
				return errors.Join(err, errors.New("not entered"))
			}
		}
		if ok, err := s.Enter(ctx, tt.ID, tournament.Entrant{User: 1, Joined: t0}); err != nil || ok {
			return errors.Join(err, errors.New("entered twice"))
		}
		return nil
	}))
	// Not due before its start; due at it.
	claim := func(at time.Time) int {
		var n int
		must(run(func(s *Store) error {
			refs, err := s.ClaimDue(ctx, at, 10)
			n = len(refs)
			return err
		}))
		return n
	}
	if claim(t0) != 0 || claim(t0.Add(time.Hour)) != 1 {
		t.Fatal("the start is not claimed at its time only")
	}
	// A claim held by one transaction is skipped by another.
	tx, err := pool.Begin(ctx)
	must(err)
	refs, err := New(tx).ClaimDue(ctx, t0.Add(time.Hour), 10)
	must(err)
	if len(refs) != 1 || claim(t0.Add(time.Hour)) != 0 {
		t.Fatal("a held claim was not skipped")
	}
	must(tx.Rollback(ctx))

	tt.State, tt.Round, tt.EndsAt = tournament.Running, 1, t0.Add(90*time.Minute)
	p := tournament.Pairing{Game: tournament.Game{Round: 1, White: 1, Black: 2}}
	must(run(func(s *Store) error {
		if err := s.Save(ctx, tt); err != nil {
			return err
		}
		return s.AddPairing(ctx, tt.ID, &p)
	}))
	again := tournament.Pairing{Game: tournament.Game{Round: 1, White: 3, Black: 2}}
	if err := run(func(s *Store) error { return s.AddPairing(ctx, tt.ID, &again) }); !errors.Is(err, ErrPaired) {
		t.Fatalf("a second pairing of a player in a round: %v, want ErrPaired", err)
	}
	must(run(func(s *Store) error {
		if ok, err := s.FinishPairing(ctx, p.ID, tournament.BlackWins, t0.Add(time.Hour+time.Minute)); err != nil || !ok {
			return errors.Join(err, errors.New("not finished"))
		}
		if ok, err := s.FinishPairing(ctx, p.ID, tournament.Draw, t0.Add(time.Hour+2*time.Minute)); err != nil || ok {
			return errors.Join(err, errors.New("finished twice"))
		}
		got, err := s.Get(ctx, tt.ID)
		if err != nil {
			return err
		}
		if got.State != tournament.Running || got.Round != 1 || !got.EndsAt.Equal(tt.EndsAt) || got.Duration != 30*time.Minute {
			t.Errorf("stored %+v", got)
		}
		ps, err := s.Pairings(ctx, tt.ID)
		if err != nil {
			return err
		}
		if len(ps) != 1 || ps[0].Result != tournament.BlackWins || ps[0].Black != 2 || ps[0].Finished.IsZero() {
			t.Errorf("pairings %+v", ps)
		}
		es, err := s.Entrants(ctx, tt.ID)
		if err != nil || len(es) != 3 || es[0].User != 1 {
			return errors.Join(err, errors.New("entrants"))
		}
		return nil
	}))
	// A running arena with two players free is due before its end.
	if claim(t0.Add(time.Hour+3*time.Minute)) != 0 {
		t.Fatal("an arena with nobody free was claimed")
	}
	must(run(func(s *Store) error {
		for _, u := range []int64{1, 2} {
			if err := s.SetFree(ctx, tt.ID, u, t0.Add(time.Hour+time.Minute)); err != nil {
				return err
			}
		}
		return nil
	}))
	if claim(t0.Add(time.Hour+3*time.Minute)) != 1 {
		t.Fatal("an arena with two players free was not claimed")
	}
	set, err := func() (tournament.Setting, error) {
		var st tournament.Setting
		err := run(func(s *Store) error {
			var err error
			if st, err = s.Setting(ctx, service); err != nil || st != tournament.DefaultSetting {
				return errors.Join(err, errors.New("not the default"))
			}
			if err := s.SaveSetting(ctx, service, tournament.Setting{UsersMayCreate: true, MaxOpen: 3}); err != nil {
				return err
			}
			st, err = s.Setting(ctx, service)
			return err
		})
		return st, err
	}()
	must(err)
	if !set.UsersMayCreate || set.MaxOpen != 3 {
		t.Fatalf("setting %+v", set)
	}
}

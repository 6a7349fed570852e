package questplay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Ensure the winner of spock sees the real opponent to the end even when the loser pressed on
// first: the loser's game ends (and the session with it) before the winner's last step, and the
// winner's last screen still names both players with the moves they made, not the bot.
func TestSpockWinnerLastScreenAfterLoserLeft(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	s.User(1, "Alice", "ru")
	s.User(2, "Bob", "ru")
	a := s.enter(t, 1, script)
	s.await(t, 1, a, spockWaitP)
	b := s.enter(t, 2, script)
	s.await(t, 2, b, spockMove)
	s.await(t, 1, a, spockMove)
	// Alice plays rock, Bob scissors: Alice wins or draws every round, and the match after three
	// wins.
	for wins, round := 0, 1; ; round++ {
		if round > 30 {
			t.Fatalf("no end after 30 rounds:\n%s", s.transcript(1))
		}
		a = s.press(t, 1, spockRock, "⏳ Ждём: Bob")
		s.press(t, 2, spockScissr, "Bob: Ножницы")
		res := s.await(t, 1, a, "Bob: Ножницы")
		if strings.Contains(res.Text, "Alice побеждает!") {
			wins++
		}
		if wins == 3 {
			break
		}
		s.press(t, 1, spockNext, spockMove)
		s.press(t, 2, spockNext, spockMove)
	}
	// Bob, the loser, presses on first: his game is over, and the session is settled.
	s.press(t, 2, spockNext, "Сегодня победить не удалось")
	s.WaitFor(t, "Bob's game to be over", func() bool {
		_, ok := s.last(2, 0, "Сегодня победить не удалось")
		return ok && s.Games(t, s.service) == 1
	})
	s.WaitFor(t, "Bob out of the session", func() bool {
		for _, q := range s.sessions(t) {
			if len(q.Players) > 1 {
				return false
			}
		}
		return true
	})
	before := s.LastID(1)
	s.press(t, 1, spockNext, "Поздравляем с победой!")
	last := s.await(t, 1, before, "Поздравляем с победой!")
	t.Logf("Alice's last screen:\n%s\n%s", last.Text, s.transcript(1))
	for _, want := range []string{"Alice: Камень", "Bob: Ножницы"} {
		if !strings.Contains(last.Text, want) {
			t.Errorf("Alice's last screen lacks %q:\n%s", want, last.Text)
		}
	}
	if strings.Contains(last.Text, "Бот") {
		t.Errorf("Alice's last screen names the bot:\n%s", last.Text)
	}
}

// leaveFor makes a user leave the quest they play for the shipped cargo run, as a player does:
// /start with its id, asked first (played with others), then Yes.
func (s *stack) leaveFor(t *testing.T, user int64) {
	t.Helper()
	var cargo int64
	if err := s.Pool.QueryRow(context.Background(), `SELECT id FROM script WHERE file = 'cargo-run_ru.qmm'`).Scan(&cargo); err != nil {
		t.Fatal(err)
	}
	before := s.LastID(user)
	s.Send(t, user, fmt.Sprintf("/start %d", cargo))
	s.await(t, user, before, "с другими игроками: если вы уйдёте, они продолжат с ботом")
	s.press(t, user, "Да", "")
	s.await(t, user, before, "▶ Груз до Боннасиса")
}

// Ensure a player who leaves a multiplayer game (for another quest) is never replaced silently:
// the opponent is told at once, in their chat and language, that the bot takes the seat, whether
// they wait for the leaver's move (they go on against the bot at once) or not (at their next
// move, without being told twice).
func TestOpponentToldAtOnceWhenAPlayerLeaves(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	s.User(1, "Alice", "ru")
	s.User(2, "Bob", "ru")
	s.User(3, "Cid", "en")
	s.User(4, "Dee", "ru")
	const left = "вышел из игры: вы продолжаете с ботом."

	// Alice has not moved when Bob leaves: she is told at once, and moves against the bot.
	a := s.enter(t, 1, script)
	b := s.enter(t, 2, script)
	s.await(t, 1, a, spockMove)
	s.await(t, 2, b, spockMove)
	before := s.LastID(1)
	s.leaveFor(t, 2)
	told := s.await(t, 1, before, left)
	if told.Text != "Игрок Bob "+left {
		t.Errorf("Alice was told %q", told.Text)
	}
	if _, ok := s.last(2, 0, left); ok {
		t.Error("Bob, who left, was told he plays the bot")
	}
	res := s.press(t, 1, spockRock, "Alice: Камень")
	if m, _ := s.last(1, res, "Alice: Камень"); !strings.Contains(m.Text, "Бот: ") {
		t.Errorf("Alice's round after Bob left:\n%s", m.Text)
	}
	s.WaitIdle(t)
	if n := s.CountText(1, left); n != 1 {
		t.Errorf("Alice was told %d times:\n%s", n, s.transcript(1))
	}

	// Dee waits for Cid's move when Cid leaves: she is told at once and goes on against the bot.
	d := s.enter(t, 4, script)
	c := s.enter(t, 3, script)
	s.await(t, 4, d, spockMove)
	s.await(t, 3, c, spockMove)
	d = s.press(t, 4, spockPaper, "⏳ Ждём: Cid")
	var cargo int64
	if err := s.Pool.QueryRow(context.Background(), `SELECT id FROM script WHERE file = 'cargo-run_en.qmm'`).Scan(&cargo); err != nil {
		t.Fatal(err)
	}
	before = s.LastID(3)
	s.Send(t, 3, fmt.Sprintf("/start %d", cargo))
	s.await(t, 3, before, "with other players: if you leave, they go on against the bot")
	s.press(t, 3, "Yes", "")
	s.await(t, 3, before, "▶ Cargo run")
	s.await(t, 4, d, "Игрок Cid "+left)
	res2 := s.await(t, 4, d, "Dee: Бумага")
	if !strings.Contains(res2.Text, "Бот: ") {
		t.Errorf("Dee's round after Cid left:\n%s", res2.Text)
	}
	s.WaitFor(t, "Dee's waiting screen to go", func() bool { return s.CountText(4, "⏳ Ждём: Cid") == 0 })
	if n := s.CountText(4, left); n != 1 {
		t.Errorf("Dee was told %d times:\n%s", n, s.transcript(4))
	}
	if len(s.sessions(t)) != 0 {
		t.Errorf("sessions left: %+v", s.sessions(t))
	}
}

package questplay_test

import (
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
		b = s.press(t, 2, spockScissr, "Bob: Ножницы")
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

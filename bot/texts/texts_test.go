package texts

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure every text of every language is there, and says as many things as the English one: the
// same verbs in the same order, so that a format never gets arguments it does not expect.
func TestComplete(t *testing.T) {
	en := reflect.ValueOf(*catalogs["en"])
	for _, lang := range languages {
		c := catalogs[lang]
		if c == nil || c.Lang != lang {
			t.Fatalf("no catalogue for %q", lang)
		}
		walk(t, lang, "", reflect.ValueOf(*c), en)
	}
}

func walk(t *testing.T, lang, path string, v, en reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			walk(t, lang, path+"."+v.Type().Field(i).Name, v.Field(i), en.Field(i))
		}
	case reflect.Map:
		for _, k := range en.MapKeys() {
			if w := v.MapIndex(k); !w.IsValid() || w.String() == "" {
				t.Errorf("%s%s[%v] is empty", lang, path, k)
			}
		}
	case reflect.String:
		if strings.TrimSpace(v.String()) == "" {
			t.Errorf("%s%s is empty", lang, path)
		}
		if got, want := verbs(v.String()), verbs(en.String()); got != want {
			t.Errorf("%s%s has verbs %q, English %q", lang, path, got, want)
		}
	}
}

// verbs lists the formatting verbs of a text.
func verbs(s string) string {
	var out []string
	for i := 0; i < len(s)-1; i++ {
		if s[i] == '%' {
			if s[i+1] == '%' {
				i++
				continue
			}
			out = append(out, s[i:i+2])
		}
	}
	return strings.Join(out, "")
}

func TestLanguage(t *testing.T) {
	for code, want := range map[string]string{"ru": "ru", "ru-RU": "ru", "RU": "ru", "en": "en", "de": "en", "": "en", "rus": "en"} {
		if got := Language(code); got != want {
			t.Errorf("Language(%q) = %q, want %q", code, got, want)
		}
		if For(code).Lang != want {
			t.Errorf("For(%q) is %q", code, For(code).Lang)
		}
	}
}

func TestListAndLeft(t *testing.T) {
	en, ru := For("en"), For("ru")
	for _, tc := range []struct {
		names []string
		en    string
		ru    string
	}{
		{nil, "…", "…"},
		{[]string{"A"}, "A", "A"},
		{[]string{"A", "B"}, "A and B", "A и B"},
		{[]string{"A", "B", "C"}, "A, B and C", "A, B и C"},
	} {
		if got := en.List(tc.names); got != tc.en {
			t.Errorf("en %v: %q", tc.names, got)
		}
		if got := ru.List(tc.names); got != tc.ru {
			t.Errorf("ru %v: %q", tc.names, got)
		}
	}
	for d, want := range map[time.Duration]string{-time.Second: "0 s", 1500 * time.Millisecond: "2 s",
		119 * time.Second: "119 s", 2 * time.Minute: "2 min", 90*time.Minute + time.Second: "91 min", 3 * time.Hour: "3 h"} {
		if got := en.Left(d); got != want {
			t.Errorf("Left(%v) = %q, want %q", d, got, want)
		}
	}
}

// Ensure each typed error gets its words, and any other error the apology.
func TestError(t *testing.T) {
	c := For("en")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("step: %w", quest.ErrNotAChoice), c.Quest.Stale},
		{questpg.ErrNoGame, c.Quest.Stale},
		{fmt.Errorf("%w: its file cannot be read", questfs.ErrUnplayable), c.Quest.NoQuest},
		{questpg.ErrNoScript, c.Quest.NoQuest},
		{&quest.FormulaError{}, c.Quest.BrokenNow},
		{fmt.Errorf("view: %w", quest.ErrTextTooDeep), c.Quest.BrokenNow},
		{errors.New("connection reset"), c.Bot.Failure},
		{fmt.Errorf("board 4: move at ply 2: %w", board.ErrStale), c.Board.MovedOn},
		{board.ErrNotYourTurn, c.Board.NotYourTurn},
		{board.ErrInviteUsed, c.Board.InviteUsed},
		{board.ErrInviteExpired, c.Board.InviteExpired},
		{board.ErrAlreadySeated, c.Board.OwnGame},
		{fmt.Errorf("undo: %w: the last move is not yours", board.ErrCannotUndo), c.Board.CannotUndo},
		{&board.MoveError{Text: "e2e5", Err: engine.ErrIllegalMove}, c.Board.BadMove},
		{fmt.Errorf("%w: replay", board.ErrCorrupt), c.Bot.Failure},
	} {
		if got := c.Error(tc.err); got != tc.want {
			t.Errorf("Error(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// Ensure a board's times read as a player expects: days and hours, hours and minutes, a clock.
func TestDuration(t *testing.T) {
	en, ru := For("en"), For("ru")
	for d, want := range map[time.Duration]string{-time.Second: "0:00", 1500 * time.Millisecond: "0:02",
		9*time.Minute + 31*time.Second: "9:31", 2*time.Hour + 5*time.Minute: "2 h 5 min",
		71*time.Hour + 59*time.Minute: "2 d 23 h", 24 * time.Hour: "1 d 0 h"} {
		if got := en.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	if got := ru.Duration(26 * time.Hour); got != "1 д 2 ч" {
		t.Errorf("ru Duration(26h) = %q", got)
	}
	if en.Game("chess") != "Chess" || ru.Game("chess") != "Шахматы" || en.Game("go") != "go" ||
		ru.Control("corr1d") != "1 день на ход" || en.Control("mine") != "mine" || en.Reason("few_dice") != "fewer than five dice left" {
		t.Error("the names of games, clocks or reasons")
	}
}

// Ensure a count takes the form its language's rule asks for: English one and many, Russian
// one (1, 21, 101), few (2–4, 22–24) and many (0, 5–20, 11–14, 25, 111).
func TestCount(t *testing.T) {
	t.Parallel()
	en := For("en").Ratings.Games
	ru := For("ru").Ratings.Games
	for _, c := range []struct {
		lang string
		p    Plural
		n    int
		want string
	}{
		{"en", en, 0, "0 games"}, {"en", en, 1, "1 game"}, {"en", en, 2, "2 games"}, {"en", en, 21, "21 games"},
		{"ru", ru, 0, "0 партий"}, {"ru", ru, 1, "1 партия"}, {"ru", ru, 2, "2 партии"}, {"ru", ru, 4, "4 партии"},
		{"ru", ru, 5, "5 партий"}, {"ru", ru, 11, "11 партий"}, {"ru", ru, 12, "12 партий"}, {"ru", ru, 14, "14 партий"},
		{"ru", ru, 21, "21 партия"}, {"ru", ru, 22, "22 партии"}, {"ru", ru, 25, "25 партий"}, {"ru", ru, 101, "101 партия"},
		{"ru", ru, 111, "111 партий"}, {"ru", ru, 112, "112 партий"}, {"ru", ru, 122, "122 партии"},
	} {
		if got := For(c.lang).Count(c.n, c.p); got != c.want {
			t.Errorf("%s %d: %q, want %q", c.lang, c.n, got, c.want)
		}
	}
	if got := For("en").RatingLine("Chess", 1500, 200, 1, 1); got != "Chess: <b>1500</b> ± 200, 1 rated game of 1" {
		t.Errorf("the English rating line: %q", got)
	}
	if got := For("ru").RatingLine("Шахматы", 1500, 200, 3, 5); got != "Шахматы: <b>1500</b> ± 200, 3 рейтинговые партии из 5" {
		t.Errorf("the Russian rating line: %q", got)
	}
}

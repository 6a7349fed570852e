package devtools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
)

// checkValues reports the first active parameter whose value lies outside its bounds.
func checkValues(d *qmm.Quest, values []int) error {
	for i, v := range values {
		p := &d.Params[i]
		if p.Active && (v < int(p.Min) || v > int(p.Max)) {
			return refuse(func(t texts.Dev) string { return t.SaveValue }, i+1, v, p.Min, p.Max)
		}
	}
	return nil
}

// cleanRanger is a player's name as /set Ranger and saves accept it: one line of printable
// characters, 1 to 32 of them; ok is false for anything else.
func cleanRanger(s string) (string, bool) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	if n == 0 || n > 32 || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return "", false
		}
	}
	return s, true
}

// restore restores an uploaded saved game as a sandbox game.
func (t *Tools) restore(ctx context.Context, tx bot.Tx, u *bot.Update, label, ext string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	var err error
	if ext == ".qsave" {
		err = t.restoreSave(ctx, tx, u, label, data)
	} else {
		err = t.restoreQMS(ctx, tx, u, label, data)
	}
	var se *saveError
	if errors.As(err, &se) {
		return sayf(ctx, tx, u, txt.BadSave, label, se.text(txt))
	}
	return err
}

func (t *Tools) restoreSave(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	s, err := parseSave(data)
	if err != nil {
		return err
	}
	sc, err := t.store.Openable(ctx, tx.DB(), u.Service, u.User.ID, s.Quest.ID)
	if errors.Is(err, questpg.ErrNoScript) {
		return sayf(ctx, tx, u, txt.SaveNoQuest, label)
	}
	if err != nil {
		return err
	}
	qf, err := t.files.Open(sc.File)
	if err != nil {
		return sayf(ctx, tx, u, txt.Unplayable, reason(err))
	}
	if len(s.State.Params) != len(qf.Doc.Params) {
		return refuse(func(t texts.Dev) string { return t.SaveCounts }, len(s.State.Params), len(qf.Doc.Params))
	}
	if s.State.Phase != quest.PhaseStarting {
		// Only starting values may lie outside the bounds: every change clamps them.
		if err := checkValues(qf.Doc, s.State.Params); err != nil {
			return err
		}
	}
	if _, err := qf.View(s.State, quest.DefaultPlayer(quest.English, fixedClock)); err != nil {
		return refuse(func(t texts.Dev) string { return t.SaveFits }, clip(err.Error(), 120))
	}
	ranger, _ := cleanRanger(s.Ranger)
	return t.startRestored(ctx, tx, u, sc, &s.State, ranger, qf.SHA256 != s.Quest.SHA256)
}

func (t *Tools) restoreQMS(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	s, err := parseQMS(data)
	if err != nil {
		return err
	}
	file := baseName(s.Quest)
	if file == "" {
		return sayf(ctx, tx, u, txt.SaveNoQuest, label)
	}
	sc, err := t.store.FindByFile(ctx, tx.DB(), u.Service, u.User.ID, file, questKey(file))
	if errors.Is(err, questpg.ErrNoScript) {
		return sayf(ctx, tx, u, txt.SaveNoQuest, label)
	}
	if err != nil {
		return err
	}
	qf, err := t.files.Open(sc.File)
	if err != nil {
		return sayf(ctx, tx, u, txt.Unplayable, reason(err))
	}
	if len(s.Params) != len(qf.Doc.Params) {
		return refuse(func(t texts.Dev) string { return t.SaveCounts }, len(s.Params), len(qf.Doc.Params))
	}
	found := false
	for i := range qf.Doc.Locations {
		found = found || qf.Doc.Locations[i].ID == s.Location
	}
	if !found {
		return refuse(func(t texts.Dev) string { return t.SaveLocation }, s.Location)
	}
	values := make([]int, len(s.Params))
	shown := make(quest.Flags, len(s.Params))
	for i, p := range s.Params {
		values[i], shown[i] = int(p.Value), !p.Hidden
	}
	if err := checkValues(qf.Doc, values); err != nil {
		return err
	}
	// The saved location is entered again from the task screen, with the saved values.
	st, err := qf.Start(newSeed())
	if err == nil {
		st.LocationID, st.Params, st.Shown = int(s.Location), values, shown
		st, err = qf.Perform(st, quest.JumpIAgree)
	}
	if err == nil {
		_, err = qf.View(st, quest.DefaultPlayer(quest.English, fixedClock))
	}
	if err != nil {
		return refuse(func(t texts.Dev) string { return t.SaveFits }, clip(err.Error(), 120))
	}
	return t.startRestored(ctx, tx, u, sc, &st, "", false)
}

// startRestored tells the user the game is restored and starts it as a sandbox.
func (t *Tools) startRestored(ctx context.Context, tx bot.Tx, u *bot.Update, sc *questpg.Script, st *quest.State, ranger string, changed bool) error {
	txt := texts.For(u.User.Language).Dev
	text := escapef(txt.SaveRestored, sc.Name)
	if changed {
		text += " " + txt.SaveChanged
	}
	if err := say(ctx, tx, u, text); err != nil {
		return err
	}
	err := t.startSandbox(ctx, tx, u, sc, st, ranger)
	if errors.Is(err, questfs.ErrUnplayable) {
		// Checked above; the file changed in between. The update is handled again.
		return fmt.Errorf("devtools: restore: %w", err)
	}
	return err
}

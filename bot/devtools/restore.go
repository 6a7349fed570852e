package devtools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// questFile is a quest's file read for the tools: its bytes, its model and its compiled form.
type questFile struct {
	data []byte
	d    *qmm.Quest
	q    *quest.Quest
}

// loadQuest reads and decodes a script's file; the compiled quest comes from the player's cache.
// Its errors match questplay.ErrUnplayable and never name the file's path.
func (t *Tools) loadQuest(file string) (*questFile, error) {
	q, err := t.games.Quest(file)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(t.games.QuestPath(file))
	if err != nil {
		return nil, fmt.Errorf("%w: its file cannot be read", questplay.ErrUnplayable)
	}
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", questplay.ErrUnplayable, err)
	}
	return &questFile{data: data, d: d, q: q}, nil
}

// openable reports whether the user may open quest script in the update's bot as a sandbox
// (dev_openable of migration 008), and returns its file and name.
func openable(ctx context.Context, db pgx.Tx, u *bot.Update, script int64) (ok bool, file, name string, err error) {
	err = db.QueryRow(ctx, `SELECT file, name FROM script WHERE id = $3 AND dev_openable($1, $2, $3)`,
		u.User.ID, u.Service, script).Scan(&file, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, "", "", nil
	}
	if err != nil {
		return false, "", "", fmt.Errorf("devtools: quest %d: %w", script, err)
	}
	return true, file, name, nil
}

// checkValues reports the first active parameter whose value lies outside its bounds.
func checkValues(d *qmm.Quest, values []int) error {
	for i, v := range values {
		p := &d.Params[i]
		if p.Active && (v < int(p.Min) || v > int(p.Max)) {
			return refuse(func(t texts) string { return t.saveValue }, i+1, v, p.Min, p.Max)
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
	txt := textsFor(lang(u))
	var err error
	if ext == ".qsave" {
		err = t.restoreSave(ctx, tx, u, label, data)
	} else {
		err = t.restoreQMS(ctx, tx, u, label, data)
	}
	var se *saveError
	if errors.As(err, &se) {
		return sayf(ctx, tx, u, txt.badSave, label, se.text(txt))
	}
	return err
}

// errNoQuest is a save whose quest the user may not open (or that does not exist).
var errNoQuest = errors.New("devtools: the save's quest is not available")

func (t *Tools) restoreSave(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := textsFor(lang(u))
	s, err := ParseSave(data)
	if err != nil {
		return err
	}
	ok, file, name, err := openable(ctx, tx.DB(), u, s.Quest.ID)
	if err != nil {
		return err
	}
	if !ok {
		return sayf(ctx, tx, u, txt.saveNoQuest, label)
	}
	qf, err := t.loadQuest(file)
	if err != nil {
		return sayf(ctx, tx, u, txt.unplayable, reason(err))
	}
	if len(s.State.Params) != len(qf.d.Params) {
		return refuse(func(t texts) string { return t.saveCounts }, len(s.State.Params), len(qf.d.Params))
	}
	if s.State.Phase != quest.PhaseStarting {
		// Only starting values may lie outside the bounds: every change clamps them.
		if err := checkValues(qf.d, s.State.Params); err != nil {
			return err
		}
	}
	if _, err := qf.q.View(s.State, quest.DefaultPlayer(quest.English, fixedClock)); err != nil {
		return refuse(func(t texts) string { return t.saveFits }, clip(err.Error(), 120))
	}
	ranger, _ := cleanRanger(s.Ranger)
	return t.startRestored(ctx, tx, u, s.Quest.ID, name, &s.State, ranger, sum(qf.data) != s.Quest.SHA256)
}

func (t *Tools) restoreQMS(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := textsFor(lang(u))
	s, err := ParseQMS(data)
	if err != nil {
		return err
	}
	script, file, name, err := t.qmsQuest(ctx, tx.DB(), u, baseName(s.Quest))
	if errors.Is(err, errNoQuest) {
		return sayf(ctx, tx, u, txt.saveNoQuest, label)
	}
	if err != nil {
		return err
	}
	qf, err := t.loadQuest(file)
	if err != nil {
		return sayf(ctx, tx, u, txt.unplayable, reason(err))
	}
	if len(s.Params) != len(qf.d.Params) {
		return refuse(func(t texts) string { return t.saveCounts }, len(s.Params), len(qf.d.Params))
	}
	found := false
	for i := range qf.d.Locations {
		found = found || qf.d.Locations[i].ID == s.Location
	}
	if !found {
		return refuse(func(t texts) string { return t.saveLocation }, s.Location)
	}
	values := make([]int, len(s.Params))
	shown := make(quest.Flags, len(s.Params))
	for i, p := range s.Params {
		values[i], shown[i] = int(p.Value), !p.Hidden
	}
	if err := checkValues(qf.d, values); err != nil {
		return err
	}
	// The saved location is entered again from the task screen, with the saved values.
	st, err := qf.q.Start(t.games.NewSeed())
	if err == nil {
		st.LocationID, st.Params, st.Shown = int(s.Location), values, shown
		st, err = qf.q.Perform(st, quest.JumpIAgree)
	}
	if err == nil {
		_, err = qf.q.View(st, quest.DefaultPlayer(quest.English, fixedClock))
	}
	if err != nil {
		return refuse(func(t texts) string { return t.saveFits }, clip(err.Error(), 120))
	}
	return t.startRestored(ctx, tx, u, script, name, &st, "", false)
}

// qmsQuest finds the quest a .qms save names by its file name: the user's own upload of that
// name (newest version), else a quest of the bot the user may open whose file has that name.
func (t *Tools) qmsQuest(ctx context.Context, db pgx.Tx, u *bot.Update, file string) (script int64, path, name string, err error) {
	if file == "" {
		return 0, "", "", errNoQuest
	}
	err = db.QueryRow(ctx, `
		SELECT s.id, s.file, s.name FROM (
			SELECT d.script_id AS id, 0 AS rank, d.version FROM dev_upload d
			WHERE d.service_id = $2 AND d.owner_id = $1 AND d.kind = 'quest' AND d.name = $4
			UNION ALL
			SELECT s.id, 1, s.version FROM script s
			WHERE lower(regexp_replace(s.file, '^.*[/\\]', '')) = lower($3)) c
		JOIN script s ON s.id = c.id
		WHERE dev_openable($1, $2, s.id)
		ORDER BY c.rank, s.listed DESC, c.version DESC, s.id DESC LIMIT 1`,
		u.User.ID, u.Service, file, questKey(file)).Scan(&script, &path, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", "", errNoQuest
	}
	if err != nil {
		return 0, "", "", fmt.Errorf("devtools: quest of a save: %w", err)
	}
	return script, path, name, nil
}

// startRestored tells the user the game is restored and starts it as a sandbox.
func (t *Tools) startRestored(ctx context.Context, tx bot.Tx, u *bot.Update, script int64, name string, st *quest.State, ranger string, changed bool) error {
	txt := textsFor(lang(u))
	text := escapef(txt.saveRestored, name)
	if changed {
		text += " " + txt.saveChanged
	}
	if err := say(ctx, tx, u, text); err != nil {
		return err
	}
	err := t.games.StartSandbox(ctx, tx, u, script, st, ranger)
	if errors.Is(err, questplay.ErrUnplayable) {
		// Checked above; the file changed in between. The update is handled again.
		return fmt.Errorf("devtools: restore: %w", err)
	}
	return err
}

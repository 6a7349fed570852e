package devtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// The built-ins of the command tree. Each checks the user's role itself (the tree's guards are
// the first gate, not the only one) and answers with a result code for the tree to word; the
// reports that can be long (/show, the documents) are sent by the built-in itself.

// find is dev.find (/load): with an argument, the quest it names that the user may open
// (code ok, fields quest and script); without, the user's uploaded quests (list, or none).
// An argument is a quest number (script id, "#12" too), else the name of one of the user's
// uploads (its newest version), else the name, common name or file name of a quest of the bot
// the user may open. It is never a path: every lookup is in the database.
func (t *Tools) find(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	db := tx.DB()
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	what := strings.TrimSpace(args["what"])
	if what == "" {
		return t.ownQuests(ctx, db, u)
	}
	if id, err := strconv.ParseInt(strings.TrimPrefix(what, "#"), 10, 64); err == nil {
		sc, err := t.store.Openable(ctx, db, u.Service, u.User.ID, id)
		if errors.Is(err, questpg.ErrNoScript) {
			return &scripts.Result{Code: "not_found"}, nil
		}
		if err != nil {
			return nil, err
		}
		return t.found(sc), nil
	}
	sc, err := t.store.Find(ctx, db, u.Service, u.User.ID, what, questKey(what), lang(u))
	if errors.Is(err, questpg.ErrNoScript) {
		return &scripts.Result{Code: "not_found"}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("devtools: find %q: %w", what, err)
	}
	return t.found(sc), nil
}

// found is dev.find's answer for a quest: ok when it starts, else broken with the reason, so
// that the tree does not announce a game that cannot begin.
func (t *Tools) found(sc *questpg.Script) *scripts.Result {
	script := strconv.FormatInt(sc.ID, 10)
	q, err := t.files.Open(sc.File)
	if err == nil {
		_, err = q.Start(newSeed())
	}
	if err != nil {
		return result("broken", "quest", sc.Name, "script", script, "error", reason(err))
	}
	return result("ok", "quest", sc.Name, "script", script)
}

// ownQuests lists the newest version of each of the user's uploaded quests, the most recent
// first, at most 20.
func (t *Tools) ownQuests(ctx context.Context, db pgx.Tx, u *bot.Update) (*scripts.Result, error) {
	list, err := t.store.OwnQuests(ctx, db, u.Service, u.User.ID, 20)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, q := range list {
		lines = append(lines, fmt.Sprintf("%d — %s (v%d)", q.Script, q.Name, q.Version))
	}
	if len(lines) == 0 {
		return &scripts.Result{Code: "none"}, nil
	}
	return result("list", "list", strings.Join(lines, "\n")), nil
}

// run is dev.run (/load): it starts quest script, found by dev.find, as a sandbox game (ok),
// or reports why it cannot start (broken, field error).
func (t *Tools) run(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	db := tx.DB()
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	id, err := strconv.ParseInt(args["script"], 10, 64)
	if err != nil {
		return &scripts.Result{Code: "error"}, nil
	}
	sc, err := t.store.Openable(ctx, db, u.Service, u.User.ID, id)
	if errors.Is(err, questpg.ErrNoScript) {
		return forbidden, nil
	}
	if err != nil {
		return nil, err
	}
	err = t.startSandbox(ctx, tx, u, sc, nil, "")
	if errors.Is(err, questfs.ErrUnplayable) {
		return result("broken", "error", reason(err)), nil
	}
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// restart is dev.restart (/restart): the running sandbox game starts again from its start, with a
// new seed, in the newest file of its catalogue entry (ok, the first screen shown); no_game,
// not_sandbox (a counted game is never restarted by hand), broken, forbidden.
func (t *Tools) restart(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	gm, err := t.running(ctx, tx, u)
	switch {
	case err != nil:
		return nil, err
	case gm == nil:
		return &scripts.Result{Code: "no_game"}, nil
	case !gm.Sandbox:
		return &scripts.Result{Code: "not_sandbox"}, nil
	}
	return t.run(ctx, tx, u, map[string]string{"script": strconv.FormatInt(gm.Script.ID, 10)})
}

// current is the user's running game with its quest, for the tools that need both.
type current struct {
	gm *questpg.Game
	qf *questfs.Quest
}

// current reads the user's running game and its quest. Without one it returns the tools' answer
// instead: "no_game" when the user plays nothing, "error" (the tree's "did not work" branch)
// when the quest file cannot be read any more; or an error of the database.
func (t *Tools) current(ctx context.Context, tx bot.Tx, u *bot.Update) (*current, *scripts.Result, error) {
	gm, err := t.running(ctx, tx, u)
	if err != nil {
		return nil, nil, err
	}
	if gm == nil {
		return nil, &scripts.Result{Code: "no_game"}, nil
	}
	qf, err := t.files.Open(gm.Script.File)
	if err != nil {
		t.log.Warn("Quest of a running game unreadable", "script", gm.Script.ID, "err", err)
		return nil, &scripts.Result{Code: "error"}, nil
	}
	return &current{gm: gm, qf: qf}, nil, nil
}

// show is dev.show: /show id, params, jumps or location, answered in the chat.
func (t *Tools) show(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	what := strings.ToLower(strings.TrimSpace(args["what"]))
	switch what {
	case "id", "params", "jumps", "location", "loc":
	default:
		return &scripts.Result{Code: "usage"}, nil
	}
	r, res, err := t.current(ctx, tx, u)
	if r == nil {
		return res, err
	}
	txt := texts.For(u.User.Language).Dev
	var text string
	switch what {
	case "id":
		kind := txt.Counted
		if r.gm.Sandbox {
			kind = txt.Sandbox
		}
		text = escapef(txt.ShowID, r.gm.State.LocationID, texts.For(u.User.Language).Phase(r.gm.State.Phase), r.gm.Step,
			r.gm.Script.Name, r.gm.Script.ID, kind)
	case "params":
		text = showParams(txt, r)
	case "jumps":
		text = showJumps(texts.For(u.User.Language), r)
	default:
		text = showLocation(txt, r)
	}
	if err := say(ctx, tx, u, text); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// showParams lists the parameters: number, name, value, bounds and notes, in a fixed-width
// block.
func showParams(txt texts.Dev, r *current) string {
	var b strings.Builder
	b.WriteString(escapef(txt.ShowParams, r.gm.Script.Name))
	b.WriteString("\n<pre>")
	for i := range r.qf.Doc.Params {
		p := &r.qf.Doc.Params[i]
		var notes []string
		if !p.Active {
			notes = append(notes, txt.ParamInactive)
		}
		if i < len(r.gm.State.Shown) && !r.gm.State.Shown[i] {
			notes = append(notes, txt.ParamHidden)
		}
		if i == r.gm.MoneyParam {
			notes = append(notes, txt.ParamMoney)
		}
		v := 0
		if i < len(r.gm.State.Params) {
			v = r.gm.State.Params[i]
		}
		line := fmt.Sprintf("p%-3d %-20s %8d  [%d..%d]", i+1, clip(p.Name, 20), v, p.Min, p.Max)
		if len(notes) > 0 {
			line += "  " + strings.Join(notes, ", ")
		}
		b.WriteString(html.EscapeString(line))
		b.WriteString("\n")
	}
	b.WriteString("</pre>")
	return b.String()
}

// showJumps lists the jumps out of the current location: whether the game offers each (and
// whether it can be taken), its target and its text.
func showJumps(c *texts.Catalog, r *current) string {
	txt := c.Dev
	st := &r.gm.State
	if st.Phase != quest.PhaseLocation {
		return escapef(txt.NoJumpsHere, c.Phase(st.Phase))
	}
	offered := map[int]bool{}
	for _, o := range st.Jumps {
		offered[o.ID] = o.Active
	}
	var b strings.Builder
	b.WriteString(escapef(txt.ShowJumps, st.LocationID))
	for i := range r.qf.Doc.Jumps {
		j := &r.qf.Doc.Jumps[i]
		if int(j.From) != st.LocationID {
			continue
		}
		status := txt.JumpHidden
		if active, ok := offered[int(j.ID)]; ok {
			status = txt.JumpInactive
			if active {
				status = txt.JumpOffered
			}
		}
		text := strings.TrimSpace(j.Text)
		if text == "" {
			text = "…"
		}
		b.WriteString(escapef("\n#%s → %s (%s): %s", j.ID, j.To, status, clip(text, 200)))
	}
	return b.String()
}

// showLocation shows the current location: its kind, its texts with their images, and the
// changes made on entering it.
func showLocation(txt texts.Dev, r *current) string {
	st := &r.gm.State
	var l *qmm.Location
	for i := range r.qf.Doc.Locations {
		if int(r.qf.Doc.Locations[i].ID) == st.LocationID {
			l = &r.qf.Doc.Locations[i]
		}
	}
	if l == nil {
		return escapef(txt.ShowLocation, st.LocationID, "?")
	}
	kinds := map[qmm.LocationType]string{qmm.LocationOrdinary: "ordinary", qmm.LocationStarting: "starting",
		qmm.LocationEmpty: "empty", qmm.LocationSuccess: "success", qmm.LocationFail: "fail", qmm.LocationDeadly: "deadly"}
	var b strings.Builder
	b.WriteString(escapef(txt.ShowLocation, l.ID, kinds[l.Type()]))
	for i, lt := range l.Texts {
		if strings.TrimSpace(lt.Text) == "" {
			continue
		}
		b.WriteString("\n\n<b>" + escapef(txt.LocationText, i+1) + "</b>")
		if img, ok := lt.Media.Image.Get(); ok && img != "" {
			b.WriteString(" (" + escapef(txt.LocationMedia, img) + ")")
		}
		b.WriteString("\n" + html.EscapeString(clip(lt.Text, 600)))
	}
	if len(l.Changes) > 0 {
		b.WriteString("\n\n<b>" + txt.LocChanges + "</b>")
		for _, c := range l.Changes {
			b.WriteString("\n" + html.EscapeString(describeChange(c)))
		}
	}
	return b.String()
}

// describeChange writes a parameter change briefly: "p3 = 5", "p1 + 2", "p2 + 10%", "p4 = [p1]*2",
// with the shown or hidden flag.
func describeChange(c qmm.ParamChange) string {
	s := "p" + strconv.Itoa(int(c.Param)+1)
	switch c.Kind() {
	case qmm.ChangeValue:
		s += fmt.Sprintf(" = %d", c.Change)
	case qmm.ChangePercentage:
		s += fmt.Sprintf(" %+d%%", c.Change)
	case qmm.ChangeFormula:
		s += " = " + clip(c.Formula, 100)
	default:
		if c.Change != 0 {
			s += fmt.Sprintf(" %+d", c.Change)
		}
	}
	switch c.Showing {
	case qmm.ShowingShow:
		s += " (show)"
	case qmm.ShowingHide:
		s += " (hide)"
	}
	return s
}

// set is dev.set: /set pN V, /set Money V, /set Ranger NAME on the running sandbox game. A
// value must lie within the parameter's bounds; Money is the quest's money parameter, whose
// value is the money the quest's texts show. The choices of the screen are offered again with
// the new value (quest.Reoffer). The tree then shows the game again.
func (t *Tools) set(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	fields := strings.Fields(args["args"])
	if len(fields) < 2 {
		return &scripts.Result{Code: "usage"}, nil
	}
	target := fields[0]
	value := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args["args"]), target))
	r, res, err := t.current(ctx, tx, u)
	if r == nil {
		return res, err
	}
	if !r.gm.Sandbox {
		return &scripts.Result{Code: "not_sandbox"}, nil
	}
	var label string
	switch low := strings.ToLower(target); {
	case low == "ranger":
		name, ok := cleanRanger(value)
		if !ok {
			return &scripts.Result{Code: "bad_name"}, nil
		}
		r.gm.Ranger, label, value = name, "Ranger", name
	case low == "money" || (len(low) > 1 && low[0] == 'p'):
		idx := r.gm.MoneyParam
		if low == "money" {
			if idx < 0 {
				return &scripts.Result{Code: "no_money"}, nil
			}
		} else {
			n, err := strconv.Atoi(low[1:])
			if err != nil || n < 1 || n > len(r.qf.Doc.Params) {
				return result("no_param", "param", target), nil
			}
			idx = n - 1
		}
		p := &r.qf.Doc.Params[idx]
		label = fmt.Sprintf("p%d (%s)", idx+1, p.Name)
		if low == "money" {
			label = "Money, " + label
		}
		v, err := strconv.Atoi(value)
		if err != nil {
			return result("bad_value", "param", label, "value", clip(value, 40)), nil
		}
		if v < int(p.Min) || v > int(p.Max) {
			return result("range", "param", label, "min", strconv.Itoa(int(p.Min)), "max", strconv.Itoa(int(p.Max))), nil
		}
		st := r.gm.State.Clone()
		st.Params[idx] = v
		// The screen's choices depend on the parameters: they are offered again with the new
		// value (a jump its condition now allows appears), as the screen is shown again.
		// The log records both, so that a replay offers the same choices.
		st, err = r.qf.Reoffer(st, questlog.Rules(string(r.gm.Script.Dialect)))
		if err != nil {
			t.log.Warn("Choices not offered again after /set", "script", r.gm.Script.ID, "err", err)
			return &scripts.Result{Code: "error"}, nil
		}
		r.gm.State = st
		r.gm.Moves = append(r.gm.Moves, questlog.Move{Set: map[int]int{idx: v}}, questlog.Move{Offer: true})
		value = strconv.Itoa(v)
	default:
		return &scripts.Result{Code: "usage"}, nil
	}
	ok, err := t.update(ctx, tx, r.gm)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &scripts.Result{Code: "error"}, nil
	}
	return result("ok", "param", label, "value", value), nil
}

// calcSeed seeds the draws of /calc when no game is running.
const calcSeed = "calc"

// calc is dev.calc: a formula evaluated with the running game's parameters and a copy of its
// random generator, so that it shows what the game's next draw would give and changes nothing.
// Without a game there are no parameters.
func (t *Tools) calc(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	src := strings.TrimSpace(args["formula"])
	if src == "" {
		return &scripts.Result{Code: "usage"}, nil
	}
	e, err := formula.Parse(src)
	var se *formula.SyntaxError
	if errors.As(err, &se) {
		return result("syntax", "error", caret(src, se.Pos)+"\n"+texts.For(u.User.Language).FormulaSyntaxError(se)), nil
	}
	if err != nil {
		return result("error", "error", err.Error()), nil
	}
	gm, err := t.running(ctx, tx, u)
	if err != nil {
		return nil, err
	}
	var params []int
	rnd := alea.New(calcSeed)
	if gm != nil {
		params, rnd = gm.State.Params, alea.FromState(gm.State.Alea)
	}
	v, err := e.Eval(params, rnd)
	if err != nil {
		return result("error", "error", texts.For(u.User.Language).FormulaFailure(err)), nil
	}
	return result("ok", "value", strconv.Itoa(v)), nil
}

// caret writes a formula on one line with a caret under byte offset pos (everything before a
// syntax error's position is ASCII, so bytes and columns agree).
func caret(src string, pos int) string {
	line := strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(src)
	pos = min(max(pos, 0), len(line))
	return clip(line, 200) + "\n" + strings.Repeat(" ", min(pos, 200)) + "^"
}

// fileBase is the base of the names of the files sent about quest script.
func fileBase(script int64) string { return "quest-" + strconv.FormatInt(script, 10) }

// dump is dev.dump: the running game's quest as a JSON document (package qmm's model, the field
// names of the quest editor), as `questbot inspect --json` prints it.
func (t *Tools) dump(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	return t.document(ctx, tx, u, func(r *current) (string, []byte, error) {
		data, err := json.MarshalIndent(r.qf.Doc, "", "  ")
		return fileBase(r.gm.Script.ID) + ".json", data, err
	})
}

// write is dev.write: the running game's quest re-encoded as .qmm (a .qm quest converted).
func (t *Tools) write(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	return t.document(ctx, tx, u, func(r *current) (string, []byte, error) {
		var b bytes.Buffer
		err := qmm.Encode(&b, r.qf.Doc)
		return fileBase(r.gm.Script.ID) + ".qmm", b.Bytes(), err
	})
}

// document sends a document made from the running game, for developers.
func (t *Tools) document(ctx context.Context, tx bot.Tx, u *bot.Update, build func(*current) (string, []byte, error)) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	r, res, err := t.current(ctx, tx, u)
	if r == nil {
		return res, err
	}
	name, data, err := build(r)
	if err != nil {
		t.log.Warn("Quest document failed", "script", r.gm.Script.ID, "err", err)
		return &scripts.Result{Code: "error"}, nil
	}
	path, err := t.output(name, data)
	if err != nil {
		return nil, err
	}
	txt := texts.For(u.User.Language).Dev
	if err := sendDocument(ctx, tx, u, path, escapef(txt.DocCaption, r.gm.Script.Name, r.gm.Script.ID)); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// save is dev.save (/save, for everybody): the running game as a save file (see save.go).
func (t *Tools) save(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	r, res, err := t.current(ctx, tx, u)
	if r == nil {
		return res, err
	}
	now := t.now().UTC().Truncate(time.Second)
	s := save{Format: saveFormat, Version: saveVersion, SavedAt: now, Ranger: r.gm.Ranger, State: r.gm.State,
		Quest: saveQuest{ID: r.gm.Script.ID, Name: r.gm.Script.Name, SHA256: r.qf.SHA256}}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	path, err := t.output(fmt.Sprintf("save-%d-%s.qsave", r.gm.Script.ID, now.Format("20060102-150405")), data)
	if err != nil {
		return nil, err
	}
	// What to do with the file travels with it, as its caption: the user reads it with the file,
	// or, when Telegram refuses the file, is told that it did not come.
	txt := texts.For(u.User.Language).Dev
	caption := escapef(txt.DocCaption, r.gm.Script.Name, r.gm.Script.ID) + "\n" + txt.SaveCaption
	if err := sendDocument(ctx, tx, u, path, caption); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

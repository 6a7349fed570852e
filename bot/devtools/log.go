package devtools

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// gameLog reads the log of the user's running game: the game, its compiled quest and the log, or
// the result the tree answers instead (no_game, incomplete, broken with an error).
func (t *Tools) gameLog(ctx context.Context, tx bot.Tx, u *bot.Update) (*questpg.Game, *questfs.Quest, *questlog.Log, *scripts.Result, error) {
	gm, err := t.running(ctx, tx, u)
	if err != nil || gm == nil {
		return nil, nil, nil, &scripts.Result{Code: "no_game"}, err
	}
	moves, complete, err := t.store.Log(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if !complete {
		return nil, nil, nil, &scripts.Result{Code: "incomplete"}, nil
	}
	q, err := t.files.Open(gm.Script.File)
	if err != nil {
		return nil, nil, nil, result("broken", "error", reason(err)), nil
	}
	// The quest's file as its developer knows it: an upload is stored under its content's hash.
	file := filepath.Base(gm.Script.File)
	if name, err := t.store.UploadFileName(ctx, tx.DB(), gm.Script.ID); err != nil {
		return nil, nil, nil, nil, err
	} else if name != "" {
		file = name
	}
	l := &questlog.Log{Header: questlog.Header{Quest: file, SHA256: q.SHA256,
		Seed: gm.State.Seed, Dialect: string(gm.Script.Dialect), Lang: gm.Script.Lang}, Moves: moves}
	return gm, q, l, nil, nil
}

// moveLog is dev.log (/log): the moves of the running game as a .log file (quest/questlog), which
// questbot replay plays again (code ok, the file sent), or no_game, incomplete (a game begun
// before logs were kept), forbidden.
func (t *Tools) moveLog(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	gm, _, l, res, err := t.gameLog(ctx, tx, u)
	if res != nil || err != nil {
		return res, err
	}
	var buf bytes.Buffer
	if err := questlog.Write(&buf, l); err != nil {
		return nil, err
	}
	path, err := t.output(fileStem(gm.Script.Name)+".log", buf.Bytes())
	if err != nil {
		return nil, err
	}
	caption := escapef(texts.For(u.User.Language).Dev.LogCaption, len(l.Moves), gm.Script.Name, l.Header.Quest)
	if err := sendDocument(ctx, tx, u, path, caption); err != nil {
		return nil, err
	}
	return result("ok", "count", strconv.Itoa(len(l.Moves))), nil
}

// positions is dev.positions (/positions): the locations the running game entered, those passed
// through without a screen of their own included, most visited first, with the beginning of each
// one's first text (ok, sent), or no_game, incomplete, broken, forbidden.
func (t *Tools) positions(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	_, q, l, res, err := t.gameLog(ctx, tx, u)
	if res != nil || err != nil {
		return res, err
	}
	visits, err := questlog.Positions(q.Quest, l)
	if err != nil {
		return result("broken", "error", clip(err.Error(), 300)), nil
	}
	first := map[int]string{}
	for i := range q.Doc.Locations {
		loc := &q.Doc.Locations[i]
		if _, seen := first[int(loc.ID)]; seen {
			continue
		}
		for _, tx := range loc.Texts {
			if s := strings.Join(strings.Fields(tx.Text), " "); s != "" {
				first[int(loc.ID)] = clip(s, 40)
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<b>%s</b>\n<pre>", html.EscapeString(l.Header.Quest))
	for _, v := range visits {
		fmt.Fprintf(&b, "L%-5d %5d×  %s\n", v.Location, v.Count, html.EscapeString(first[v.Location]))
	}
	b.WriteString("</pre>")
	if err := say(ctx, tx, u, b.String()); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// fileStem makes a quest's name a file name: letters, digits, '-' and '_' kept, other runs of
// characters one '_'; "quest" when nothing is left.
func fileStem(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		ok := r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
			r >= 'а' && r <= 'я' || r >= 'А' && r <= 'Я' || r == 'ё' || r == 'Ё'
		switch {
		case ok:
			b.WriteRune(r)
			under = false
		case !under && b.Len() > 0:
			b.WriteByte('_')
			under = true
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" || len(s) > 60 {
		return "quest"
	}
	return s
}

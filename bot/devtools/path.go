package devtools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// The developer's moves through a sandbox game: /goto enters any location of it, /replay plays
// the path of the running game again on the newest version of its quest. Both answer in the
// developer's language themselves (the tree words only the refusal of the role and a failure)
// and work only on a sandbox game, so that nothing done by hand ever counts.

// sandbox reads the running game and its quest for /goto and /replay; without a sandbox game it
// says why and returns nil.
func (t *Tools) sandbox(ctx context.Context, tx bot.Tx, u *bot.Update) (*current, error) {
	txt := texts.For(u.User.Language).Dev
	r, res, err := t.current(ctx, tx, u)
	switch {
	case err != nil:
		return nil, err
	case res != nil && res.Code == "no_game":
		return nil, say(ctx, tx, u, txt.NoSandbox)
	case res != nil:
		return nil, errors.New("devtools: the quest of the running game cannot be read")
	case !r.gm.Sandbox:
		return nil, say(ctx, tx, u, txt.NotSandbox)
	}
	return r, nil
}

// said is the result of a built-in that answered itself.
var said = &scripts.Result{Code: "ok"}

// gotoLocation is dev.goto (/goto 12, /goto L12): the running sandbox game enters the location
// with that id (as the quest's editor and /show name it), as if it had arrived there (quest.Goto),
// and its screen is shown. A location the quest lacks is refused with the list of those it has.
func (t *Tools) gotoLocation(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	txt := texts.For(u.User.Language).Dev
	arg := strings.TrimSpace(args["where"])
	id, err := strconv.Atoi(strings.TrimLeft(arg, "LlЛл#"))
	if arg == "" || err != nil {
		return said, say(ctx, tx, u, txt.GotoUsage)
	}
	r, err := t.sandbox(ctx, tx, u)
	if r == nil {
		return said, err
	}
	st, err := r.qf.Goto(r.gm.State, id, questlog.Rules(string(r.gm.Script.Dialect)))
	switch {
	case errors.Is(err, quest.ErrNoLocation):
		return said, sayf(ctx, tx, u, txt.GotoNoLocation, r.gm.Script.Name, clip(arg, 20), locationList(r.qf))
	case err != nil:
		return said, sayf(ctx, tx, u, txt.GotoBroken, id, reason(err))
	}
	r.gm.State = st
	r.gm.Moves = append(r.gm.Moves, questlog.Move{Goto: &id})
	if ok, err := t.update(ctx, tx, r.gm); err != nil || !ok {
		return &scripts.Result{Code: "error"}, err
	}
	if err := sayf(ctx, tx, u, txt.GotoDone, id, r.gm.Script.Name); err != nil {
		return nil, err
	}
	return said, t.player.Show(ctx, tx, u)
}

// locationList lists a quest's location ids, in order, runs of consecutive ids as "3–7", at most
// 40 items.
func locationList(q *questfs.Quest) string {
	ids := make([]int, 0, len(q.Doc.Locations))
	for i := range q.Doc.Locations {
		ids = append(ids, int(q.Doc.Locations[i].ID))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var items []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		item := strconv.Itoa(ids[i])
		if j > i {
			item += "–" + strconv.Itoa(ids[j])
		}
		if len(items) == 40 {
			items = append(items, "…")
			break
		}
		items = append(items, item)
		i = j + 1
	}
	return strings.Join(items, ", ")
}

// replay is dev.replay (/replay): the moves of the running sandbox game (its log) are played
// again, from the same seed, on the newest version of its quest the developer uploaded, as far as
// they go: the first move that the new version no longer offers stops the replay, and the
// developer is told where (the move, the location, the phase) and why (the jump is gone, leaves
// another location, is not offered or cannot be taken). The game then goes on in the new
// version as a sandbox, at the screen where the replay stopped, its log the moves replayed, so
// that the next version replays them again.
func (t *Tools) replay(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	c := texts.For(u.User.Language)
	txt := c.Dev
	r, err := t.sandbox(ctx, tx, u)
	if r == nil {
		return said, err
	}
	db := tx.DB()
	moves, complete, err := t.store.Log(ctx, db, u.Service, u.User.ID)
	switch {
	case err != nil:
		return nil, err
	case !complete:
		return said, say(ctx, tx, u, txt.ReplayIncomplete)
	case len(moves) == 0:
		return said, say(ctx, tx, u, txt.ReplayNothing)
	}
	next, version, err := t.newestVersion(ctx, tx, u, r.gm.Script)
	if err != nil {
		return nil, err
	}
	if next.ID == r.gm.Script.ID {
		return said, sayf(ctx, tx, u, txt.ReplayNewest, r.gm.Script.Name, version)
	}
	nq, err := t.files.Open(next.File)
	if err != nil {
		return result("broken", "error", reason(err)), nil
	}
	if _, err := nq.Start(r.gm.State.Seed); err != nil {
		return result("broken", "error", reason(err)), nil
	}
	l := &questlog.Log{Header: questlog.Header{Seed: r.gm.State.Seed, Dialect: string(next.Dialect)}, Moves: moves}
	done := 0
	// On a move that fails, Replay returns the state before it: where the game goes on.
	st, err := questlog.Replay(nq.Quest, l, quest.Options{}, func(i int, _ quest.State) { done = i + 1 })
	var report string
	if done == len(moves) {
		report = escapef(txt.ReplayDone, len(moves), next.Name, version, next.ID)
	} else {
		why := t.whyStopped(c, r.qf, nq, st, moves[done], err)
		report = escapef(txt.ReplayStopped, done, len(moves), next.Name, version, next.ID, done+1, st.LocationID,
			c.Phase(st.Phase), why)
	}
	if err := say(ctx, tx, u, report); err != nil {
		return nil, err
	}
	err = t.startSandboxLog(ctx, tx, u, next, &st, r.gm.Ranger, slices.Clone(moves[:done]))
	if errors.Is(err, questfs.ErrUnplayable) {
		return result("broken", "error", reason(err)), nil
	}
	return said, err
}

// newestVersion is the newest version of the quest of a catalogue entry that the developer
// uploaded (its catalogue entry and version number): the entry itself, version 0, when it is
// not an upload of theirs or is the newest.
func (t *Tools) newestVersion(ctx context.Context, tx bot.Tx, u *bot.Update, sc questpg.Script) (*questpg.Script, int, error) {
	db := tx.DB()
	name, err := t.store.UploadFileName(ctx, db, sc.ID)
	if err != nil || name == "" {
		return &sc, 0, err
	}
	last, err := t.store.LastUpload(ctx, db, u.Service, u.User.ID, "quest", questKey(name))
	if err != nil || last.Script == 0 {
		return &sc, last.Version, err
	}
	if last.Script == sc.ID {
		return &sc, last.Version, nil
	}
	next, err := t.store.Openable(ctx, db, u.Service, u.User.ID, last.Script)
	if errors.Is(err, questpg.ErrNoScript) {
		return &sc, 0, nil
	}
	return next, last.Version, err
}

// whyStopped says why move m, which failed with err, cannot be made in state st of the new
// version nq: the jump it takes is gone, leaves another location, is not offered or cannot be
// taken; the screen is another; or the move fails otherwise. The jump's text is
// the one of the run's version old.
func (t *Tools) whyStopped(c *texts.Catalog, old, nq *questfs.Quest, st quest.State, m questlog.Move, err error) string {
	txt := c.Dev
	if m.Action == nil || !errors.Is(err, quest.ErrNotAChoice) {
		return fmt.Sprintf(txt.ReplayFailed, clip(strings.TrimPrefix(reason(err), "quest: "), 200))
	}
	id := *m.Action
	if id < 0 || st.Phase != quest.PhaseLocation {
		// A built-in choice (I agree, Next, Go back to ship), or a jump where the new version
		// shows another kind of screen (a jump's description, a critical value's message).
		return txt.ReplayScreen
	}
	text := "…"
	for i := range old.Doc.Jumps {
		if j := &old.Doc.Jumps[i]; int(j.ID) == id && strings.TrimSpace(j.Text) != "" {
			text = clip(strings.Join(strings.Fields(j.Text), " "), 60)
		}
	}
	for i := range nq.Doc.Jumps {
		j := &nq.Doc.Jumps[i]
		if int(j.ID) != id {
			continue
		}
		if int(j.From) != st.LocationID {
			return fmt.Sprintf(txt.ReplayMoved, strconv.Itoa(id), text, strconv.Itoa(int(j.From)))
		}
		for _, o := range st.Jumps {
			if o.ID == id {
				return fmt.Sprintf(txt.ReplayInactive, strconv.Itoa(id), text)
			}
		}
		return fmt.Sprintf(txt.ReplayHidden, strconv.Itoa(id), text)
	}
	return fmt.Sprintf(txt.ReplayGone, strconv.Itoa(id), text)
}

// replayHint is the line that follows the answer to the upload of a new version (script) of the
// quest whose older version (key) the developer runs as a sandbox: /replay plays the path on the
// new one. "" when they run nothing of the kind.
func (t *Tools) replayHint(ctx context.Context, tx bot.Tx, u *bot.Update, key string, script int64) (string, error) {
	gm, err := t.running(ctx, tx, u)
	if err != nil || gm == nil || !gm.Sandbox || gm.Script.ID == script {
		return "", err
	}
	name, err := t.store.UploadFileName(ctx, tx.DB(), gm.Script.ID)
	if err != nil || name == "" || questKey(name) != key {
		return "", err
	}
	return escapef(texts.For(u.User.Language).Dev.ReplayHint, gm.Script.ID), nil
}

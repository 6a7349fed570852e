package questplay

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
)

// # Dialects
//
// A quest of the catalogue is played in a dialect (questpg.Dialect). In the reference dialect
// the game is the reference player's and each screen is its view, exactly. The dagazbot dialect
// is for the quests written for the original Telegram bot (DagazBotV3), whose own interpreter
// showed them differently; its rules change what is shown, never the game's state nor its
// random draws, except the one rule of play the original bot had:
//
//   - Buttons keep their places: they are in showing order, then in the order of their texts
//     among the location's jumps in the file. (The reference breaks ties of the showing order at
//     random on every screen, so a keypad or a grid lands in new places at each move.)
//   - The number of buttons a row is the current location's own image field when that is a
//     number (the selected text's, else the first text's, as the original bot read it), one a
//     row elsewhere. (The reference keeps the last image named, so the width of one screen
//     stuck to every later one.)
//   - What a step walks through is shown: each location passed without a screen of its own is
//     posted before the next screen, as the description of the jump that entered it followed by
//     the location's text, with its picture; and an empty location entered through a jump with a
//     description shows the description, then its own text. (The reference shows neither, so a
//     showdown written as the text of an empty location was never seen.)
//   - A screen whose only choice is a "Next" (a jump without text or with "...", or the pseudo
//     choice after a description) is posted without its button and the choice is taken at once,
//     at most maxAutoNext times a step, and never at a multiplayer point.
//   - A picture is shown only where the current location or jump names one, never carried over
//     to later screens.
//   - <Money> is the quest's win bonus when the quest has no money parameter.
//   - The rule of play: of the jumps that share a text, only those of the highest priority can
//     be taken (quest.Options.TopPriority). The reference also takes the ones at a hundredth of
//     it now and then, which in spock ended decisive rounds in false draws.

// maxAutoNext bounds the "Next" choices the dagazbot dialect takes by itself in one step, so that
// a loop of such screens is shown to the player instead of being followed for ever.
const maxAutoNext = 10

// dagaz reports whether a game is played in the dagazbot dialect.
func dagaz(gm *game) bool { return gm.Script.Dialect == questpg.DialectDagazBot }

// options are the quest player's options of a game's dialect: the rule of play (the same the
// game's log is replayed by, questlog.Rules) and what the dialect shows; passed observes the
// locations an action walks through (nil: none).
func options(gm *game, passed func(quest.Passage)) quest.Options {
	o := questlog.Rules(string(gm.Script.Dialect))
	if dagaz(gm) {
		o.DescribedText, o.Passed = true, passed
	}
	return o
}

// layoutInfo is what the dagazbot dialect derives once from a quest file (see derive).
type layoutInfo struct {
	// ranks orders the buttons: a jump's rank is the file position of the first jump of its
	// location with the same text.
	ranks map[int]int
	// orders are the jumps' showing orders.
	orders map[int]int32
	// nexts are the jumps whose choice is a "Next": no text, or "...".
	nexts map[int]bool
	// widths are the buttons a row of the locations whose first text's image field is a
	// number.
	widths map[int]int
	// described are the jumps whose description is a screen of its own: they have one and lead
	// to a location that is not empty (the target of one with a description that is empty shows
	// it itself).
	described map[int]bool
}

// isNextText reports whether a jump's text makes it a "Next" choice in the original bot.
func isNextText(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s == "..." || s == "…"
}

// buttonsPerRow reads an image field that gives a number of buttons a row; 0 when it is none.
func buttonsPerRow(image string) int {
	n, err := strconv.Atoi(strings.TrimSpace(image))
	if err != nil || n < 1 {
		return 0
	}
	return min(n, maxButtonsPerRow)
}

// arrange lays out a view of a game in the dagazbot dialect before it is rendered: the choices
// in their stable order, the picture, and the buttons a row (returned).
func (c *compiled) arrange(st *quest.State, v *quest.View) (width int) {
	slices.SortStableFunc(v.Choices, func(a, b quest.Choice) int {
		if r := cmp.Compare(c.orders[a.JumpID], c.orders[b.JumpID]); r != 0 {
			return r
		}
		return cmp.Compare(c.ranks[a.JumpID], c.ranks[b.JumpID])
	})
	picture := func(name string) string {
		if buttonsPerRow(name) > 0 {
			return ""
		}
		return name
	}
	width = 1
	v.Image = ""
	switch st.Phase {
	case quest.PhaseLocation, quest.PhaseCritOnLocation:
		if n := buttonsPerRow(v.LocationImage); n > 0 {
			width = n
		} else if n := c.widths[st.LocationID]; n > 0 {
			width = n
		}
		v.Image = picture(v.LocationImage)
		if v.Image == "" && !c.described[st.LastJumpID] {
			v.Image = picture(v.JumpImage)
		}
	case quest.PhaseJump, quest.PhaseJumpAndNextCrit:
		v.Image = picture(v.JumpImage)
	}
	return width
}

// loneNext reports whether a view's only active choice is a "Next" (see isNextText), which the
// dagazbot dialect takes by itself, and returns it.
func (c *compiled) loneNext(v *quest.View) (int, bool) {
	id, n := 0, 0
	for _, ch := range v.Choices {
		if ch.Active {
			id, n = ch.JumpID, n+1
		}
	}
	if n != 1 || v.Status.Over() {
		return 0, false
	}
	return id, id == quest.JumpNext || c.nexts[id]
}

// passageReqs are the messages that show the locations a step passed through (dagazbot): for
// each, its picture, then the description of the jump that entered it and its text.
func (g *Games) passageReqs(ctx context.Context, db pgx.Tx, chat int64, c *compiled, gm *game, name string, passed []quest.Passage) ([]bot.Request, error) {
	if len(passed) == 0 {
		return nil, nil
	}
	name = gm.ranger(name)
	nameHTML := escape(name)
	p := g.player(gm)
	var reqs []bot.Request
	for _, ps := range passed {
		desc, text, err := c.PassageText(ps, p)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, s := range []string{desc, text} {
			s = g.multiText(c, gm, s, name)
			if s = strings.TrimSpace(markupHTML(s, nameHTML)); s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			continue
		}
		if img := g.picture(ctx, db, c, gm.Script.ID, ps.Image); img != "" {
			r, err := bot.SendPhoto(chat, img, "", nil)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r)
		}
		msgs, err := bot.SendHTML(chat, strings.Join(parts, "\n\n"), nil)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, msgs...)
	}
	return reqs, nil
}

// picture returns the file of a picture a quest names, "" when the name is none (or a number of
// buttons a row) or no file is found.
func (g *Games) picture(ctx context.Context, db pgx.Tx, c *compiled, script int64, name string) string {
	name = strings.TrimSpace(name)
	if name == "" || buttonsPerRow(name) > 0 {
		return ""
	}
	if _, err := strconv.Atoi(name); err == nil {
		return ""
	}
	if g.images != nil {
		if p := g.images.FindImage(ctx, db, script, name); p != "" {
			return p
		}
	}
	return c.Image(name)
}

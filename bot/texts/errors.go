package texts

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/sessions/board"
)

// Error is what a user is told of an error: the one place where the bot's typed errors become
// words. The features return or pass their errors here rather than choosing texts by themselves;
// an error that is not one of those known here gets the generic apology (and the code that met it
// logs it).
func (c *Catalog) Error(err error) string {
	var fe *quest.FormulaError
	switch {
	case err == nil:
		return ""
	// A press that is no longer a choice of the screen, or of a game that is gone.
	case errors.Is(err, quest.ErrNotAChoice), errors.Is(err, questpg.ErrNoGame):
		return c.Quest.Stale
	// A quest whose file cannot be played, or that the bot does not offer.
	case errors.Is(err, questfs.ErrUnplayable), errors.Is(err, questpg.ErrNoScript),
		errors.Is(err, quest.ErrNoStartLocation):
		return c.Quest.NoQuest
	// A quest that breaks while it is played: a formula, a reference to nothing, a loop.
	case errors.As(err, &fe), errors.Is(err, quest.ErrBrokenQuest), errors.Is(err, quest.ErrAutoJumpLimit),
		errors.Is(err, quest.ErrTextTooDeep), errors.Is(err, quest.ErrBadState):
		return c.Quest.BrokenNow
	}
	if s := c.boardError(err); s != "" {
		return s
	}
	return c.Bot.Failure
}

// QuestProblem says for a quest's developer why a file is not a quest that plays (an error of
// questfs.Check), as the end of a sentence: "it is damaged (…)". Other errors get the generic
// apology.
func (c *Catalog) QuestProblem(err error) string {
	var ce *questfs.CheckError
	detail := ""
	if errors.As(err, &ce) {
		detail = clip(ce.Detail, 200)
	}
	switch {
	case errors.Is(err, questfs.ErrNotQuest):
		return c.Dev.NotQuest
	case errors.Is(err, questfs.ErrEndsEarly):
		return c.Dev.EndsEarly
	case errors.Is(err, questfs.ErrDamaged):
		return fmt.Sprintf(c.Dev.Damaged, detail)
	case errors.Is(err, questfs.ErrNoCompile):
		return fmt.Sprintf(c.Dev.NoCompile, detail)
	case errors.Is(err, questfs.ErrNoStart):
		return fmt.Sprintf(c.Dev.NoStart, detail)
	}
	return c.Bot.Failure
}

// clip shortens a technical detail for a message to n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// boardError words the errors of board games (package board and the engine's move errors),
// plain; "" for any other error.
func (c *Catalog) boardError(err error) string {
	b := &c.Board
	switch {
	// A press or a move made for a ply the board has left.
	case errors.Is(err, board.ErrStale):
		return b.MovedOn
	case errors.Is(err, board.ErrNotYourTurn):
		return b.NotYourTurn
	case errors.Is(err, board.ErrFinished), errors.Is(err, engine.ErrGameOver):
		return b.Over
	case errors.Is(err, board.ErrNotSeated):
		return b.NotYours
	case errors.Is(err, board.ErrNotStarted):
		return b.NotStarted
	case errors.Is(err, board.ErrFull):
		return b.Full
	case errors.Is(err, board.ErrAlreadySeated):
		return b.OwnGame
	case errors.Is(err, board.ErrInviteUsed):
		return b.InviteUsed
	case errors.Is(err, board.ErrInviteExpired):
		return b.InviteExpired
	case errors.Is(err, board.ErrNotFound):
		return b.NoGame
	case errors.Is(err, board.ErrCannotUndo):
		return b.CannotUndo
	case errors.Is(err, board.ErrNoOffer):
		return b.NoOffer
	case errors.Is(err, board.ErrOffered):
		return b.AlreadyOffered
	case errors.Is(err, board.ErrTooManyBotGames):
		return b.TooManyBotGames
	// A move the engine refused; a typed move gets a fuller answer from bot/boards.
	case errors.Is(err, board.ErrIllegalMove), errors.Is(err, engine.ErrIllegalMove),
		errors.Is(err, engine.ErrAmbiguousMove):
		return b.BadMove
	case errors.Is(err, board.ErrInvalid):
		return b.Unplayable
	}
	return ""
}

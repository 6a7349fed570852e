package telegram

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/scripts"
)

// View is the boards in Telegram: it shows the service's changes in the players' chats and
// carries out their commands, presses and typed moves through the service's operations. Safe
// for concurrent use.
type View struct {
	svc *boards.Boards
	log *slog.Logger
}

// New returns the Telegram view of the board service svc, and adds it to svc's views, so that
// every change of a board is shown in its players' chats, and registers the drawer of the
// boards' pictures with the transport's sender (boards.PictureDrawer). log receives what goes wrong; nil
// discards it.
func New(svc *boards.Boards, log *slog.Logger) *View {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &View{svc: svc, log: log}
	svc.AddView(v)
	// The boards' pictures are drawn by the sender, as their requests go (show.go).
	if err := bot.RegisterDrawer(boards.PictureDrawer, boards.DrawPicture); err != nil {
		log.Error("The board pictures cannot be drawn", slog.Any("error", err))
	}
	return v
}

// Builtin is an operation the command tree calls by name (the shape of scriptbot.Builtin): see
// View.Builtins.
type Builtin = func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error)

// ref is the message ref of a board's message in a player's chat.
func ref(board int64) string { return fmt.Sprintf("board:%d", board) }

package telegram

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
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
	svc.AddView(serviceView{v})
	svc.SetSharedInvites(func(ctx context.Context, db pgx.Tx, board int64) (string, bool, error) {
		sh, ok, err := tgstore.New(db).SharedOf(ctx, board)
		return sh.Invite, ok, err
	})
	// The boards' pictures are drawn by the sender, as their requests go (show.go).
	if err := bot.RegisterDrawer(boards.PictureDrawer, boards.DrawPicture); err != nil {
		log.Error("The board pictures cannot be drawn", slog.Any("error", err))
	}
	return v
}

// Doer runs work in a transaction of the bot's own outside any update, whose messages go to the
// outbox of a bot (bot.Transport.Do): the view's jobs use it.
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx bot.Tx) error) error
}

// The bot's transactions are the service's.
var _ boards.Tx = bot.Tx(nil)

// botTx is the bot's transaction a change is handed to the view in: the service speaks its own
// Tx, and its callers (the bot's handlers, the web through the bot's Doer, the jobs through
// boards.DoerOf of the transport) give it the bot's, whose outbox the view sends to.
func botTx(tx boards.Tx) (bot.Tx, error) {
	t, ok := tx.(bot.Tx)
	if !ok {
		return nil, fmt.Errorf("telegram: a board change in a transaction of %T, not of the bot: nothing can be sent in it", tx)
	}
	return t, nil
}

// serviceView is the view as the service hands it its changes (boards.View), in the bot's
// transaction (botTx).
type serviceView struct{ v *View }

var _ boards.View = serviceView{}

func (s serviceView) Changed(ctx context.Context, tx boards.Tx, ch *boards.Change) error {
	t, err := botTx(tx)
	if err != nil {
		return err
	}
	return s.v.Changed(ctx, t, ch)
}

func (s serviceView) Refresh(ctx context.Context, tx boards.Tx, sc *boards.Scene, seat int) error {
	t, err := botTx(tx)
	if err != nil {
		return err
	}
	return s.v.Refresh(ctx, t, sc, seat)
}

func (s serviceView) Notify(ctx context.Context, tx boards.Tx, sc *boards.Scene, seat int, n boards.News) error {
	t, err := botTx(tx)
	if err != nil {
		return err
	}
	return s.v.Notify(ctx, t, sc, seat, n)
}

func (s serviceView) Remind(ctx context.Context, tx boards.Tx, sc *boards.Scene, seat int, w boards.Warning) error {
	t, err := botTx(tx)
	if err != nil {
		return err
	}
	return s.v.Remind(ctx, t, sc, seat, w)
}

// Builtin is an operation the command tree calls by name (the shape of scriptbot.Builtin): see
// View.Builtins.
type Builtin = func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error)

// ref is the message ref of a board's message in a player's chat.
func ref(board int64) string { return fmt.Sprintf("board:%d", board) }

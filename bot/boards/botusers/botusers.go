// Package botusers gives the board service (bot/boards) the bot's users as its players: their
// profiles, read by the bot's store of users (bot/botpg), as the service's plain data
// (boards.Profile), and which of them are programs playing through an API token. The service
// knows nothing of the transport or its stores; the composition root (bot/app) hands it this.
package botusers

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
)

// Users are the bot's users as the board service's players (boards.Users). The zero value is
// ready.
type Users struct{}

var _ boards.Users = Users{}

// Profile implements boards.Users.
func (Users) Profile(ctx context.Context, db pgx.Tx, id int64) (*boards.Profile, error) {
	p, err := botpg.NewUsers().Profile(ctx, db, id)
	if errors.Is(err, botpg.ErrNoUser) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &boards.Profile{ID: p.ID, Chat: p.Chat, FirstName: p.FirstName, Username: p.Username, Lang: p.Lang,
		Admin: p.Admin, Blocked: p.Blocked}, nil
}

// Programs implements boards.Users.
func (Users) Programs(ctx context.Context, db pgx.Tx, service int, users []int64) (map[int64]bool, error) {
	return botpg.Credentials{}.Programs(ctx, db, service, users)
}

package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"strconv"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
)

// # Credentials nobody received
//
// The message that carries an API token (/token) or a login link (/web) carries its secret
// (bot.KeepSecret): the transport does not send it once the secret has expired, and when it fails
// for good (Telegram refuses it, the user blocked the bot, it is given up, it expired unsent) it
// keeps only a form with the secret withheld and records the credential. Nobody saw such a
// credential, so nobody would revoke it: Undelivered, a job, takes those records (FOR UPDATE SKIP
// LOCKED, so that each is settled once whatever the processes) and in the same transaction
// revokes each credential and tells its issuer:
//
//   - an API token is revoked, and the admin who asked for it is told in their chat
//     (texts.Board.TokenUndelivered), to ask again;
//   - a login link is used up; its user is the one who could not be reached, so nobody is told.
//
// A token's message that is not delivered within TokenDeliveryTTL is not sent at all: a token
// delivered a day late to a chat that gave up on it is one nobody expects.

// UndeliveredSpec is how often the bot runs Undelivered as a scheduled job.
const UndeliveredSpec = "@every 5s"

// undeliveredBatch bounds the credentials one transaction settles.
const undeliveredBatch = 100

var kinds = []string{KindToken, KindTicket}

// Undelivered revokes the API tokens and login links whose message could not be delivered, and
// tells the admins who asked for the tokens; each bot's in transactions of its own through do.
func Undelivered(ctx context.Context, do Doer, log *slog.Logger) error {
	var services []int
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		var err error
		services, err = botpg.Outbox{}.SecretFailureServices(ctx, tx.DB(), kinds)
		return err
	})
	if err != nil {
		return fmt.Errorf("telegram: undelivered credentials: %w", err)
	}
	for _, service := range services {
		for more := true; more; {
			err := do.Do(ctx, service, func(ctx context.Context, tx bot.Tx) error {
				list, err := botpg.Outbox{}.TakeSecretFailures(ctx, tx.DB(), service, kinds, undeliveredBatch)
				if err != nil {
					return err
				}
				more = len(list) == undeliveredBatch
				for _, f := range list {
					if err := settle(ctx, tx, f, log); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("telegram: undelivered credentials of bot %d: %w", service, err)
			}
		}
	}
	return nil
}

// settle revokes one credential not delivered, in tx, and tells its issuer.
func settle(ctx context.Context, tx bot.Tx, f bot.SecretFailure, log *slog.Logger) error {
	log = log.With(slog.Int("service_id", f.Service), slog.String("kind", f.Kind), slog.String("credential", f.ID),
		slog.String("reason", f.Reason))
	creds := botpg.Credentials{}
	switch f.Kind {
	case KindTicket:
		err := creds.UseUpTicket(ctx, tx.DB(), f.ID)
		if errors.Is(err, botpg.ErrBadTicketRef) {
			log.Warn("A login link not delivered names no ticket")
			return nil
		}
		if err != nil {
			return err
		}
		log.Info("A login link could not be delivered; it is used up")
		return nil
	case KindToken:
		id, err := strconv.ParseInt(f.ID, 10, 64)
		if err != nil {
			log.Warn("An API token not delivered names no token")
			return nil
		}
		user, admin, revoked, err := creds.RevokeUndelivered(ctx, tx.DB(), f.Service, id)
		if err != nil {
			return err
		}
		if !revoked {
			log.Info("An API token could not be delivered; it was revoked already")
			return nil
		}
		log.Warn("An API token could not be delivered; it is revoked and its issuer told")
		users := botpg.NewUsers()
		to, err := users.Profile(ctx, tx.DB(), admin)
		if err != nil {
			return err
		}
		name := ""
		p, err := botusers.Users{}.Profile(ctx, tx.DB(), user)
		if err != nil {
			return err
		}
		if p != nil {
			name = boards.PlayerName(p, p.ID)
		}
		who := fmt.Sprintf("«%s» (%d)", html.EscapeString(name), user)
		reqs, err := bot.SendHTML(to.Chat, fmt.Sprintf(texts.For(to.Lang).Board.TokenUndelivered, id, who, user), nil)
		if err != nil {
			return err
		}
		return tx.Send(ctx, reqs...)
	}
	return nil
}

package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/scripts"
)

// # Access to the web game server
//
// /web and /token let users into the web game server (bot/boards/web) from their chat: /web
// gives a login link, an admin's /token an API token for a program. Both are kept by their store,
// botpg.Credentials, which stores only hashes; the message that carries a link or a token keeps
// it only until it is sent (bot.KeepSecret), and one that could not be delivered has its
// credential revoked (Undelivered). A credential is given only in the user's private chat with
// the bot: sent in a group (whose members all read the answer, and where Telegram shows the
// command menu too), either command issues nothing and answers with the code private, which
// the tree words as "ask me in our private chat" (migration 035_boards_telegram.sql).

// Lifetimes of the secrets given in the chat.
const (
	// TicketTTL is how long a login link works.
	TicketTTL = 10 * time.Minute
	// TokenDeliveryTTL is how long the message of a new API token may wait to be delivered.
	TokenDeliveryTTL = time.Hour
)

// Kinds of credentials, as the transport records them (bot.Secret.Kind).
const (
	KindToken  = "web.token"
	KindTicket = "web.ticket"
)

// AccessBuiltins returns the built-ins of the commands that let users into the web game server
// (migration 017_web.sql), by name; publicURL is the server's address (PUBLIC_URL), now its
// clock (time.Now when nil):
//
//   - board.web: a login link in the field "link"; code ok, or off when no address is set, or
//     private in a chat other than the user's private chat.
//   - board.token (args): "<user id> [name]" issues an API token for that user of the bot
//     (fields token, id, who; code ok, or unknown for a user the bot does not know);
//     "revoke <id>" revokes one (code revoked, or not_found); usage for anything else;
//     forbidden for anyone but an admin, whatever the tree's guard says; private, for an
//     admin, in a chat other than their private chat (a revocation too: it names the token).
func AccessBuiltins(publicURL string, now func() time.Time) map[string]Builtin {
	if now == nil {
		now = time.Now
	}
	publicURL = strings.TrimRight(publicURL, "/")
	return map[string]Builtin{
		"board.web": func(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
			if publicURL == "" {
				return &scripts.Result{Code: "off"}, nil
			}
			if u.User == nil || !privateChat(u.Chat, u.User.ID) {
				return &scripts.Result{Code: "private"}, nil
			}
			at := now()
			ticket, ref, err := botpg.Credentials{}.IssueTicket(ctx, tx.DB(), u.Service, u.User.ID, at, TicketTTL)
			if err != nil {
				return nil, fmt.Errorf("/web: %w", err)
			}
			// The link is not sent once it no longer works, nor kept once its message failed
			// (Undelivered).
			err = bot.KeepSecret(tx, bot.Secret{Kind: KindTicket, ID: ref, Values: []string{ticket}, Expires: at.Add(TicketTTL)})
			if err != nil {
				return nil, err
			}
			return result("ok", map[string]any{"link": publicURL + "/login/" + ticket})
		},
		"board.token": func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
			return token(ctx, tx, u, args["args"], now())
		},
	}
}

// maxTokenName bounds the name of an API token (runes; the table allows 64 characters).
const maxTokenName = 64

// token is /token: issue or revoke an API token (admins).
func token(ctx context.Context, tx bot.Tx, u *bot.Update, args string, now time.Time) (*scripts.Result, error) {
	if u.User == nil || !u.User.IsAdmin {
		return &scripts.Result{Code: "forbidden"}, nil
	}
	if u.User == nil || !privateChat(u.Chat, u.User.ID) {
		return &scripts.Result{Code: "private"}, nil
	}
	creds := botpg.Credentials{}
	f := strings.Fields(args)
	if len(f) == 2 && strings.EqualFold(f[0], "revoke") {
		id, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || id <= 0 {
			return &scripts.Result{Code: "usage"}, nil
		}
		ok, err := creds.RevokeToken(ctx, tx.DB(), u.Service, id, now)
		if err != nil {
			return nil, fmt.Errorf("/token: %w", err)
		}
		code := "revoked"
		if !ok {
			code = "not_found"
		}
		return result(code, map[string]any{"id": f[1]})
	}
	if len(f) == 0 {
		return &scripts.Result{Code: "usage"}, nil
	}
	user, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || user <= 0 {
		return &scripts.Result{Code: "usage"}, nil
	}
	name := strings.Join(f[1:], " ")
	if utf8.RuneCountInString(name) > maxTokenName {
		name = string([]rune(name)[:maxTokenName])
	}
	users := botpg.NewUsers()
	_, joined, err := users.JoinedAt(ctx, tx.DB(), u.Service, user)
	if err != nil {
		return nil, fmt.Errorf("/token: %w", err)
	}
	if !joined {
		return result("unknown", map[string]any{"who": f[0]})
	}
	p, err := botusers.Users{}.Profile(ctx, tx.DB(), user)
	if err != nil {
		return nil, fmt.Errorf("/token: %w", err)
	}
	who := fmt.Sprintf("«%s» (%d)", boards.PlayerName(p, user), user)
	id, tok, err := creds.IssueToken(ctx, tx.DB(), u.Service, user, u.User.ID, name, now)
	if err != nil {
		return nil, fmt.Errorf("/token: %w", err)
	}
	// A token whose message is not delivered is revoked, and the admin told (Undelivered).
	err = bot.KeepSecret(tx, bot.Secret{Kind: KindToken, ID: strconv.FormatInt(id, 10), Values: []string{tok},
		Expires: now.Add(TokenDeliveryTTL)})
	if err != nil {
		return nil, err
	}
	return result("ok", map[string]any{"token": tok, "id": strconv.FormatInt(id, 10), "who": who})
}

package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/scriptbot"
)

var _ scriptbot.Extension = (*Relay)(nil)

// Defaults of Config.
const (
	DefaultWindow      = 25
	DefaultTick        = time.Second
	DefaultReportEvery = 5 * time.Second
	DefaultNewsCheck   = 10 * time.Second
	DefaultPerMinute   = 10
	DefaultKeep        = 90 * 24 * time.Hour
)

// Config configures a Relay.
type Config struct {
	// Pool is the database of the broadcast worker (Run); the handlers use the update's
	// transaction.
	Pool *pgxpool.Pool
	// Log receives the worker's failures.
	Log *slog.Logger
	// Window is how many copies of a broadcast may wait in the outbox at once; DefaultWindow
	// unless set. The sender drains them at Telegram's rate; a small window leaves room for the
	// replies to other users in between.
	Window int
	// Tick is how often the worker moves the running broadcasts on; DefaultTick unless set.
	Tick time.Duration
	// ReportEvery is the least time between two edits of a broadcast's progress message;
	// DefaultReportEvery unless set.
	ReportEvery time.Duration
	// NewsCheck is how long the list of current news is cached; DefaultNewsCheck unless set. A
	// negative value reads it on every update.
	NewsCheck time.Duration
	// PerMinute is how many messages a user (not an admin) may have relayed in a minute;
	// DefaultPerMinute unless set.
	PerMinute int
	// Keep is how long the links between relayed messages and their copies are kept, so that
	// replies to them still find their way; DefaultKeep unless set.
	Keep time.Duration
}

// Relay relays messages between users and admins. It is a scriptbot.Extension (free texts and
// replies, the broadcast buttons), a wrapper of the update handler that delivers news (Wrap), and
// a background worker that sends broadcasts (Run).
type Relay struct {
	cfg Config
	log *slog.Logger

	mu   sync.Mutex
	news newsCache
}

// New returns a relay.
func New(cfg Config) *Relay {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.ReportEvery <= 0 {
		cfg.ReportEvery = DefaultReportEvery
	}
	if cfg.NewsCheck == 0 {
		cfg.NewsCheck = DefaultNewsCheck
	}
	if cfg.PerMinute <= 0 {
		cfg.PerMinute = DefaultPerMinute
	}
	if cfg.Keep <= 0 {
		cfg.Keep = DefaultKeep
	}
	return &Relay{cfg: cfg, log: cfg.Log}
}

// copyRef is the ref the copies of relayed message id are sent under (migration 009 records
// them in relay_copy by it).
func copyRef(id int64) string { return "relay:" + strconv.FormatInt(id, 10) }

// HandleMessage relays a text the command tree left: a reply to a relayed copy goes to the author
// of the original, as a reply to it; any other text of a user goes to the admins, and of an admin
// becomes a broadcast to confirm. Texts of black-listed chats are left to the tree (which answers
// with its hint), and so is everything outside private chats.
func (r *Relay) HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	m := u.Message
	if m == nil || u.User == nil || m.Chat == nil || m.Chat.Type != "private" {
		return false, nil
	}
	t := textsFor(bot.Language(u.User.Language))
	if m.Text == "" {
		if !media(m) {
			return false, nil
		}
		return true, say(ctx, tx, u.Chat, t.onlyText)
	}
	db := tx.DB()
	var banned bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM black_list WHERE service_id = $1 AND chat_id = $2)`,
		u.Service, u.Chat).Scan(&banned)
	if err != nil {
		return false, fmt.Errorf("relay: black list: %w", err)
	}
	if banned {
		return false, nil
	}
	if !u.User.IsAdmin {
		var recent int
		err := db.QueryRow(ctx, `
			SELECT count(*) FROM relay_message
			WHERE service_id = $1 AND author_id = $2 AND created_at > now() - interval '1 minute'`,
			u.Service, u.User.ID).Scan(&recent)
		if err != nil {
			return false, fmt.Errorf("relay: recent messages: %w", err)
		}
		if recent >= r.cfg.PerMinute {
			return true, say(ctx, tx, u.Chat, t.tooMany)
		}
	}
	if re := m.ReplyToMessage; re != nil {
		orig, err := findCopy(ctx, db, u.Service, u.Chat, re.MessageID)
		if err != nil {
			return false, err
		}
		if orig != nil {
			return true, r.reply(ctx, tx, u, t, orig)
		}
		if u.User.IsAdmin {
			// Broadcasting an admin's reply to something else would surprise them.
			return true, say(ctx, tx, u.Chat, t.notCopy)
		}
	}
	if u.User.IsAdmin {
		return true, r.draft(ctx, tx, u, t)
	}
	return true, r.toAdmins(ctx, tx, u, t)
}

// media reports whether a message carries something other than text that a user may mean for the
// admins. Documents are left to the uploads.
func media(m *tgbotapi.Message) bool {
	return m.Photo != nil || m.Sticker != nil || m.Voice != nil || m.Video != nil || m.VideoNote != nil ||
		m.Audio != nil || m.Animation != nil || m.Location != nil || m.Contact != nil
}

// author is the writer of a relayed message, as an admin's copy shows them.
type author struct {
	id        int64
	chat      int64
	firstName string
	username  string
}

func authorOf(u *bot.User) author {
	return author{id: u.ID, chat: u.ChatID, firstName: u.FirstName, username: u.Username}
}

// position is where a user is in their quest.
type position struct {
	quest    string
	location string
	step     int
}

func questPosition(ctx context.Context, db pgx.Tx, service int, user int64) (*position, error) {
	var p position
	err := db.QueryRow(ctx, `
		SELECT s.name, COALESCE(g.state->>'loc', '?'), g.step
		FROM game g JOIN script s ON s.id = g.script_id
		WHERE g.service_id = $1 AND g.user_id = $2`, service, user).Scan(&p.quest, &p.location, &p.step)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("relay: quest of user %d: %w", user, err)
	}
	return &p, nil
}

// header is the first line of a copy shown to an admin: who wrote it, and where they are in their
// quest (pos nil: in none) or, for a broadcast (lang set), whom it is for.
func header(t texts, a author, pos *position, broadcastLang string) string {
	who := "<b>" + html.EscapeString(displayName(a)) + "</b>"
	if a.username != "" {
		who += " @" + html.EscapeString(a.username)
	}
	who += " · id <code>" + strconv.FormatInt(a.chat, 10) + "</code> · "
	switch {
	case broadcastLang != "":
		return who + fmt.Sprintf(t.toEveryone, t.language[broadcastLang])
	case pos == nil:
		return who + "<i>" + t.noQuest + "</i>"
	}
	return who + "<i>" + fmt.Sprintf(t.inQuest, html.EscapeString(pos.quest), html.EscapeString(pos.location), pos.step) + "</i>"
}

func displayName(a author) string {
	switch {
	case strings.TrimSpace(a.firstName) != "":
		return a.firstName
	case a.username != "":
		return a.username
	}
	return "id " + strconv.FormatInt(a.chat, 10)
}

// copyText is the text of a copy: with the header for an admin, the bare text for anyone else
// (the bot speaks for the admins).
func copyText(toAdmin bool, t texts, a author, pos *position, broadcastLang, text string) string {
	body := html.EscapeString(text)
	if !toAdmin {
		return body
	}
	return header(t, a, pos, broadcastLang) + "\n" + body
}

// toAdmins sends a user's text to every admin of the bot.
func (r *Relay) toAdmins(ctx context.Context, tx bot.Tx, u *bot.Update, t texts) error {
	db := tx.DB()
	rows, err := db.Query(ctx, `
		SELECT u.chat_id, u.language FROM users u
		JOIN user_service us ON us.user_id = u.id AND us.service_id = $1
		WHERE u.is_admin AND u.blocked_at IS NULL AND u.id <> $2
		ORDER BY u.id`, u.Service, u.User.ID)
	if err != nil {
		return fmt.Errorf("relay: admins: %w", err)
	}
	type admin struct {
		chat int64
		lang string
	}
	admins, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (admin, error) {
		var a admin
		err := row.Scan(&a.chat, &a.lang)
		return a, err
	})
	if err != nil {
		return fmt.Errorf("relay: admins: %w", err)
	}
	if len(admins) == 0 {
		return say(ctx, tx, u.Chat, t.noAdmins)
	}
	pos, err := questPosition(ctx, db, u.Service, u.User.ID)
	if err != nil {
		return err
	}
	id, err := record(ctx, db, u, "to_admins", 0)
	if err != nil {
		return err
	}
	a := authorOf(u.User)
	for _, ad := range admins {
		reqs, err := bot.SendHTML(ad.chat, copyText(true, textsFor(bot.Language(ad.lang)), a, pos, "", u.Message.Text), nil)
		if err != nil {
			return err
		}
		if err := tx.Send(ctx, bot.WithRef(copyRef(id), reqs...)...); err != nil {
			return err
		}
	}
	return say(ctx, tx, u.Chat, t.sent)
}

// record stores a relayed message of the update's sender and returns its id.
func record(ctx context.Context, db pgx.Tx, u *bot.Update, kind string, replyTo int64) (int64, error) {
	var id int64
	err := db.QueryRow(ctx, `
		INSERT INTO relay_message (service_id, kind, author_id, chat_id, message_id, reply_to)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, 0)) RETURNING id`,
		u.Service, kind, u.User.ID, u.Chat, u.Message.MessageID, replyTo).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("relay: record message: %w", err)
	}
	return id, nil
}

// original is the relayed message a copy stands for, and its author.
type original struct {
	relay     int64
	chat      int64
	messageID int64
	admin     bool
	lang      string
	author    author
	blocked   bool
}

// findCopy returns the original of the copy message msgID in chat, or nil when it is not a copy.
// Copies are keyed by chat and message id together: message ids repeat across chats.
func findCopy(ctx context.Context, db pgx.Tx, service int, chat int64, msgID int) (*original, error) {
	var o original
	var username *string
	err := db.QueryRow(ctx, `
		SELECT m.id, m.chat_id, m.message_id, u.is_admin, u.language, u.id, u.first_name, u.username,
			u.blocked_at IS NOT NULL
		FROM relay_copy c JOIN relay_message m ON m.id = c.relay_id JOIN users u ON u.id = m.author_id
		WHERE c.service_id = $1 AND c.chat_id = $2 AND c.message_id = $3`, service, chat, msgID).
		Scan(&o.relay, &o.chat, &o.messageID, &o.admin, &o.lang, &o.author.id, &o.author.firstName, &username, &o.blocked)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("relay: find copy %d in chat %d: %w", msgID, chat, err)
	}
	if username != nil {
		o.author.username = *username
	}
	o.author.chat = o.chat
	if o.chat == chat {
		// A copy never goes to its author's own chat.
		return nil, nil
	}
	return &o, nil
}

// reply sends a reply to a copy to the author of the original, as a reply to it.
func (r *Relay) reply(ctx context.Context, tx bot.Tx, u *bot.Update, t texts, o *original) error {
	if o.blocked {
		return say(ctx, tx, u.Chat, fmt.Sprintf(t.blocked, html.EscapeString(displayName(o.author))))
	}
	db := tx.DB()
	var pos *position
	if o.admin {
		var err error
		if pos, err = questPosition(ctx, db, u.Service, u.User.ID); err != nil {
			return err
		}
	}
	id, err := record(ctx, db, u, "reply", o.relay)
	if err != nil {
		return err
	}
	text := copyText(o.admin, textsFor(bot.Language(o.lang)), authorOf(u.User), pos, "", u.Message.Text)
	reqs, err := bot.SendHTML(o.chat, text, nil)
	if err != nil {
		return err
	}
	// The reply hangs on the original; if its author deleted it, it comes as a plain message.
	rp, _ := json.Marshal(map[string]any{"message_id": o.messageID, "allow_sending_without_reply": true})
	reqs[0].Params["reply_parameters"] = string(rp)
	if err := tx.Send(ctx, bot.WithRef(copyRef(id), reqs...)...); err != nil {
		return err
	}
	to := t.replied
	name := displayName(o.author)
	if !u.User.IsAdmin {
		// A user is told their answer went on, not which admin reads it.
		to, name = t.sent, ""
	}
	if name == "" {
		return say(ctx, tx, u.Chat, to)
	}
	return say(ctx, tx, u.Chat, fmt.Sprintf(to, html.EscapeString(name)))
}

// say sends an HTML text to a chat.
func say(ctx context.Context, tx bot.Tx, chat int64, text string) error {
	reqs, err := bot.SendHTML(chat, text, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// HandleCallback handles the buttons of a broadcast's message ("r:send:<id>", "r:cancel:<id>",
// "r:stop:<id>"); other data is not the relay's.
func (r *Relay) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	cq := u.CallbackQuery
	if cq == nil || u.User == nil {
		return false, nil
	}
	verb, id, ok := parseButton(cq.Data)
	if !ok {
		return false, nil
	}
	t := textsFor(bot.Language(u.User.Language))
	if !u.User.IsAdmin {
		return true, tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, t.adminsOnly))
	}
	var answer string
	var err error
	switch verb {
	case "send":
		answer, err = r.confirm(ctx, tx, u, t, id)
	case "cancel":
		answer, err = r.cancel(ctx, tx, u, t, id)
	case "stop":
		answer, err = r.stop(ctx, tx, u, t, id)
	}
	if err != nil {
		return true, err
	}
	return true, tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, answer))
}

// parseButton splits the callback data "r:<verb>:<broadcast id>".
func parseButton(data string) (verb string, id int64, ok bool) {
	rest, found := strings.CutPrefix(data, "r:")
	if !found {
		return "", 0, false
	}
	verb, num, found := strings.Cut(rest, ":")
	if !found || (verb != "send" && verb != "cancel" && verb != "stop") {
		return "", 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return verb, id, err == nil && id > 0
}

func button(verb string, id int64) string { return "r:" + verb + ":" + strconv.FormatInt(id, 10) }

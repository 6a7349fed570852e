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

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/relay/relaypg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest/questpg"
)

// CallbackPrefix is the prefix of the callback data of the broadcasts' buttons.
const CallbackPrefix = "r"

// BroadcastSpec is how often the broadcast job (Broadcast) runs; CleanupSpec the clean-up's.
const (
	BroadcastSpec = "@every 1s"
	CleanupSpec   = "@every 1h"
)

// Store keeps the relay's own records: the relayed messages and the links of their copies, the
// black list, the broadcasts and the news (bot/relay/relaypg implements it). Every method works
// in the transaction db; LockInChat and LockRunning lock the broadcast they return until it ends.
type Store interface {
	// Banned reports whether a chat of a bot is on its black list.
	Banned(ctx context.Context, db pgx.Tx, service int, chat int64) (bool, error)
	// Recent counts the messages a user had relayed in a bot in the last minute.
	Recent(ctx context.Context, db pgx.Tx, service int, author int64) (int, error)
	// Record stores a relayed message and returns its id.
	Record(ctx context.Context, db pgx.Tx, m relaypg.Message) (int64, error)
	// FindCopy returns the relayed message whose copy is message msgID of a chat; nil when that
	// message is no copy.
	FindCopy(ctx context.Context, db pgx.Tx, service int, chat int64, msgID int) (*relaypg.Copy, error)
	// Copies counts the chats a relayed message's copies reached.
	Copies(ctx context.Context, db pgx.Tx, relay int64) (int, error)
	// DeleteOld removes the relayed messages older than keep, but those of running broadcasts.
	DeleteOld(ctx context.Context, db pgx.Tx, keep time.Duration) error

	// AddBroadcast records a draft broadcast and returns its id.
	AddBroadcast(ctx context.Context, db pgx.Tx, b relaypg.NewBroadcast) (int64, error)
	// LockInChat locks broadcast id of a chat (FOR UPDATE); nil when the chat has none such.
	LockInChat(ctx context.Context, db pgx.Tx, id int64, service int, chat int64) (*relaypg.Broadcast, error)
	// Start makes a draft running, for total users; Reported records the progress shown.
	Start(ctx context.Context, db pgx.Tx, id int64, total int) error
	Reported(ctx context.Context, db pgx.Tx, id int64, text string) error
	// Cancel ends a draft; Stop ends a running broadcast with its last progress text.
	Cancel(ctx context.Context, db pgx.Tx, id int64) error
	Stop(ctx context.Context, db pgx.Tx, id int64, text string) error
	// CancelStale cancels the drafts nobody confirmed within a day.
	CancelStale(ctx context.Context, db pgx.Tx) error
	// Running lists the running broadcasts; LockRunning locks one of them (FOR UPDATE SKIP
	// LOCKED: nil when it is no longer running or another transaction holds it); SaveProgress
	// writes how far it went, and its status.
	Running(ctx context.Context, db pgx.Tx) ([]relaypg.Running, error)
	LockRunning(ctx context.Context, db pgx.Tx, id int64) (*relaypg.Broadcast, error)
	SaveProgress(ctx context.Context, db pgx.Tx, b *relaypg.Broadcast, status string) error

	// CurrentNews lists the news that have not ended, and when the first not yet started starts.
	CurrentNews(ctx context.Context, db pgx.Tx) ([]relaypg.ActiveNews, *time.Time, error)
	// TakeNews returns the items among ids a user of a bot has not had and is meant to, and
	// writes their receipts.
	TakeNews(ctx context.Context, db pgx.Tx, ids []int64, user int64, service int, joined *time.Time) ([]relaypg.NewsItem, error)
}

var _ Store = (*relaypg.Store)(nil)

// Users gives the users the relay writes to (bot/botpg implements it).
type Users interface {
	Admins(ctx context.Context, db pgx.Tx, service int, except int64) ([]botpg.Profile, error)
	Profile(ctx context.Context, db pgx.Tx, id int64) (*botpg.Profile, error)
	JoinedAt(ctx context.Context, db pgx.Tx, service int, user int64) (time.Time, bool, error)
	CountAudience(ctx context.Context, db pgx.Tx, a botpg.Audience) (int, error)
	ListAudience(ctx context.Context, db pgx.Tx, a botpg.Audience, after *int64, limit int) ([]botpg.Recipient, error)
}

// Outbox follows the copies of a broadcast in the outbox (bot/botpg implements it).
type Outbox interface {
	CancelPending(ctx context.Context, db pgx.Tx, service int, ref string) error
	RefCounts(ctx context.Context, db pgx.Tx, service int, ref string) (failedChats, pending int, err error)
}

// Games says where a user is in their quest (quest/questpg implements it).
type Games interface {
	Position(ctx context.Context, db pgx.Tx, service int, user int64) (*questpg.Position, error)
}

// Doer runs work in a transaction of its own, whose messages go to the outbox of a bot
// (bot.Transport.Do).
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx bot.Tx) error) error
}

// Defaults of Config.
const (
	defaultWindow      = 25
	defaultReportEvery = 5 * time.Second
	defaultNewsCheck   = 10 * time.Second
	defaultPerMinute   = 10
	defaultKeep        = 90 * 24 * time.Hour
)

// Config configures a Relay.
type Config struct {
	// Store keeps the relay's records; relaypg's when nil.
	Store Store
	// Users, Outbox and Games are the stores the relay reads; botpg's and questpg's when nil.
	Users  Users
	Outbox Outbox
	Games  Games
	// Log receives the jobs' failures.
	Log *slog.Logger
	// Window is how many copies of a broadcast may wait in the outbox at once; defaultWindow
	// unless set. The sender drains them at Telegram's rate; a small window leaves room for the
	// replies to other users in between.
	Window int
	// ReportEvery is the least time between two edits of a broadcast's progress message;
	// defaultReportEvery unless set.
	ReportEvery time.Duration
	// NewsCheck is how long the list of current news is cached; defaultNewsCheck unless set. A
	// negative value reads it on every update.
	NewsCheck time.Duration
	// PerMinute is how many messages a user (not an admin) may have relayed in a minute;
	// defaultPerMinute unless set.
	PerMinute int
	// Keep is how long the links between relayed messages and their copies are kept, so that
	// replies to them still find their way; defaultKeep unless set.
	Keep time.Duration
}

// Relay relays messages between users and admins. Its handlers take the texts nothing else took
// (HandleMessage) and the broadcasts' buttons (HandleCallback); Wrap is middleware that delivers
// news; Broadcast and Cleanup are scheduled jobs.
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
		cfg.Window = defaultWindow
	}
	if cfg.Store == nil {
		cfg.Store = relaypg.New()
	}
	if cfg.Users == nil {
		cfg.Users = botpg.NewUsers()
	}
	if cfg.Outbox == nil {
		cfg.Outbox = botpg.Outbox{}
	}
	if cfg.Games == nil {
		cfg.Games = questpg.New()
	}
	if cfg.ReportEvery <= 0 {
		cfg.ReportEvery = defaultReportEvery
	}
	if cfg.NewsCheck == 0 {
		cfg.NewsCheck = defaultNewsCheck
	}
	if cfg.PerMinute <= 0 {
		cfg.PerMinute = defaultPerMinute
	}
	if cfg.Keep <= 0 {
		cfg.Keep = defaultKeep
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
	t := texts.For(u.User.Language).Relay
	if m.Text == "" {
		if !media(m) {
			return false, nil
		}
		return true, say(ctx, tx, u.Chat, t.OnlyText)
	}
	db := tx.DB()
	banned, err := r.cfg.Store.Banned(ctx, db, u.Service, u.Chat)
	if err != nil {
		return false, fmt.Errorf("relay: black list: %w", err)
	}
	if banned {
		return false, nil
	}
	if !u.User.IsAdmin {
		recent, err := r.cfg.Store.Recent(ctx, db, u.Service, u.User.ID)
		if err != nil {
			return false, fmt.Errorf("relay: recent messages: %w", err)
		}
		if recent >= r.cfg.PerMinute {
			return true, say(ctx, tx, u.Chat, t.TooMany)
		}
	}
	if re := m.ReplyToMessage; re != nil {
		orig, err := r.findCopy(ctx, db, u.Service, u.Chat, re.MessageID)
		if err != nil {
			return false, err
		}
		if orig != nil {
			return true, r.reply(ctx, tx, u, t, orig)
		}
		if u.User.IsAdmin {
			// Broadcasting an admin's reply to something else would surprise them.
			return true, say(ctx, tx, u.Chat, t.NotCopy)
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

func (r *Relay) questPosition(ctx context.Context, db pgx.Tx, service int, user int64) (*position, error) {
	p, err := r.cfg.Games.Position(ctx, db, service, user)
	if errors.Is(err, questpg.ErrNoGame) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	return &position{quest: p.Quest, location: strconv.Itoa(p.Location), step: p.Step}, nil
}

// header is the first line of a copy shown to an admin: who wrote it, and where they are in their
// quest (pos nil: in none) or, for a broadcast (lang set), whom it is for.
func header(t texts.Relay, a author, pos *position, broadcastLang string) string {
	who := "<b>" + html.EscapeString(displayName(a)) + "</b>"
	if a.username != "" {
		who += " @" + html.EscapeString(a.username)
	}
	who += " · id <code>" + strconv.FormatInt(a.chat, 10) + "</code> · "
	switch {
	case broadcastLang != "":
		return who + fmt.Sprintf(t.ToEveryone, t.Language[broadcastLang])
	case pos == nil:
		return who + "<i>" + t.NoQuest + "</i>"
	}
	return who + "<i>" + fmt.Sprintf(t.InQuest, html.EscapeString(pos.quest), html.EscapeString(pos.location), pos.step) + "</i>"
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
func copyText(toAdmin bool, t texts.Relay, a author, pos *position, broadcastLang, text string) string {
	body := html.EscapeString(text)
	if !toAdmin {
		return body
	}
	return header(t, a, pos, broadcastLang) + "\n" + body
}

// toAdmins sends a user's text to every admin of the bot.
func (r *Relay) toAdmins(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay) error {
	db := tx.DB()
	admins, err := r.cfg.Users.Admins(ctx, db, u.Service, u.User.ID)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	if len(admins) == 0 {
		return say(ctx, tx, u.Chat, t.NoAdmins)
	}
	pos, err := r.questPosition(ctx, db, u.Service, u.User.ID)
	if err != nil {
		return err
	}
	id, err := r.record(ctx, db, u, "to_admins", 0)
	if err != nil {
		return err
	}
	a := authorOf(u.User)
	for _, ad := range admins {
		reqs, err := bot.SendHTML(ad.Chat, copyText(true, texts.For(ad.Lang).Relay, a, pos, "", u.Message.Text), nil)
		if err != nil {
			return err
		}
		if err := tx.Send(ctx, bot.WithRef(copyRef(id), reqs...)...); err != nil {
			return err
		}
	}
	return say(ctx, tx, u.Chat, t.Sent)
}

// record stores a relayed message of the update's sender and returns its id.
func (r *Relay) record(ctx context.Context, db pgx.Tx, u *bot.Update, kind string, replyTo int64) (int64, error) {
	id, err := r.cfg.Store.Record(ctx, db, relaypg.Message{Service: u.Service, Kind: kind, Author: u.User.ID,
		Chat: u.Chat, MessageID: u.Message.MessageID, ReplyTo: replyTo})
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
func (r *Relay) findCopy(ctx context.Context, db pgx.Tx, service int, chat int64, msgID int) (*original, error) {
	c, err := r.cfg.Store.FindCopy(ctx, db, service, chat, msgID)
	if err != nil {
		return nil, fmt.Errorf("relay: find copy %d in chat %d: %w", msgID, chat, err)
	}
	if c == nil {
		return nil, nil
	}
	o := original{relay: c.Relay, chat: c.Chat, messageID: c.MessageID}
	authorID := c.Author
	if o.chat == chat {
		// A copy never goes to its author's own chat.
		return nil, nil
	}
	p, err := r.cfg.Users.Profile(ctx, db, authorID)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	o.admin, o.lang, o.blocked = p.Admin, p.Lang, p.Blocked
	o.author = author{id: p.ID, chat: o.chat, firstName: p.FirstName, username: p.Username}
	return &o, nil
}

// reply sends a reply to a copy to the author of the original, as a reply to it.
func (r *Relay) reply(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay, o *original) error {
	if o.blocked {
		return say(ctx, tx, u.Chat, fmt.Sprintf(t.Blocked, html.EscapeString(displayName(o.author))))
	}
	db := tx.DB()
	var pos *position
	if o.admin {
		var err error
		if pos, err = r.questPosition(ctx, db, u.Service, u.User.ID); err != nil {
			return err
		}
	}
	id, err := r.record(ctx, db, u, "reply", o.relay)
	if err != nil {
		return err
	}
	text := copyText(o.admin, texts.For(o.lang).Relay, authorOf(u.User), pos, "", u.Message.Text)
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
	to := t.Replied
	name := displayName(o.author)
	if !u.User.IsAdmin {
		// A user is told their answer went on, not which admin reads it.
		to, name = t.Sent, ""
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
// "r:stop:<id>"); any other "r:" data is answered that the button is no longer active.
func (r *Relay) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	verb, id, ok := parseButton(cq.Data)
	if !ok {
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, texts.For(u.User.Language).Bot.Stale))
	}
	t := texts.For(u.User.Language).Relay
	if !u.User.IsAdmin {
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, t.AdminsOnly))
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
		return err
	}
	return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, answer))
}

// parseButton splits the callback data "r:<verb>:<broadcast id>".
func parseButton(data string) (verb string, id int64, ok bool) {
	rest, found := strings.CutPrefix(data, CallbackPrefix+":")
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

func button(verb string, id int64) string {
	return CallbackPrefix + ":" + verb + ":" + strconv.FormatInt(id, 10)
}

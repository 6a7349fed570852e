// Package scriptbot is the bot's top-level update handler: slash commands and the answers to
// their prompts go to the command tree of package scripts, presses of its menus ("m:..." callback
// data) too, and presses of quest buttons ("q:...") go to the quest player (bot/questplay).
//
// The interpreter returns effects as data; Handler carries them out inside the update's
// transaction: texts and menus become outbox rows, quest effects become calls of Games, and a
// stored-procedure or HTTP call is made at once (the procedure through the transaction, behind a
// savepoint so that its failure rolls back only itself; the HTTP request with the action's
// timeout) and the interpreter is run again with its result, until the dialogue waits for the
// user or ends. The dialogue's state is saved with the update, so a restart continues it.
//
// The prompt of a hidden parameter is sent under a message reference (bot.Request.Ref), so that
// once it is answered the prompt is deleted by reference along with the answer. When a dialogue
// changes the user's language (/lang), the chat gets its own command menu in that language, sent
// again whenever the command tree changes.
//
// A text that is neither a command nor the answer to a prompt gets a hint. A press of a menu
// that is no longer the one the dialogue waits on (an old message, another user's data, forged
// data) is answered with a short notice and changes nothing.
package scriptbot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/scripts"
)

// Games is the quest player, as the command tree uses it (bot/questplay implements it).
type Games interface {
	// Launch starts quest script scriptID for the user, replacing any running game, and sends
	// its first screen.
	Launch(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64) error
	// Running returns the script of the user's running game.
	Running(ctx context.Context, tx bot.Tx, u *bot.Update) (scriptID int64, ok bool, err error)
	// Cancel ends the user's running game.
	Cancel(ctx context.Context, tx bot.Tx, u *bot.Update) error
	// SwitchLanguage moves the running game to the same quest in lang, when it has that
	// translation, and reports whether it did.
	SwitchLanguage(ctx context.Context, tx bot.Tx, u *bot.Update, lang string) (bool, error)
	// Retry shows the current screen of the running game again, applying nothing.
	Retry(ctx context.Context, tx bot.Tx, u *bot.Update) error
	// HandleCallback handles a press of a quest button ("q:..." data) and reports whether the
	// press was the game's.
	HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) (handled bool, err error)
}

// Builtin is an operation the command tree calls by name (action type builtin) for what SQL
// cannot do: the quest developers' tools, which need the running game and the files. It gets
// the action's request parameters by name and runs in the update's transaction; it may send
// messages itself (tx.Send). Its result is mapped into parameters and branched on as a stored
// procedure's: Result.Code picks the child. An error fails the update; a refusal or a bad
// argument is a result code, for the tree to answer.
type Builtin func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error)

// Extension handles what the command tree leaves: a message that is neither a command nor the
// answer to a prompt (a file, a reply, free text), and a press of a button whose callback data
// neither the tree ("m:") nor the quest player ("q:") owns. Extensions are asked in order; the
// first that reports handled ends the search. Nothing handled gets the tree's hint or the
// stale-button notice.
type Extension interface {
	HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (handled bool, err error)
	HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) (handled bool, err error)
}

// Contexts keeps the users' running dialogues (scripts/scriptpg implements it). db is the
// update's transaction.
type Contexts interface {
	// Load returns the user's dialogue, or nil when there is none.
	Load(ctx context.Context, db pgx.Tx, service int, user int64) (*scripts.State, error)
	// NewID returns a fresh dialogue id.
	NewID(ctx context.Context, db pgx.Tx) (int64, error)
	// Save stores the dialogue, replacing the user's other one; a finished dialogue is deleted.
	Save(ctx context.Context, db pgx.Tx, service int, user int64, st *scripts.State) error
	// Delete ends the user's dialogue.
	Delete(ctx context.Context, db pgx.Tx, service int, user int64) error
}

// Config configures a Handler.
type Config struct {
	// Source gives the command trees.
	Source scripts.Source
	// Contexts keeps the running dialogues.
	Contexts Contexts
	// Games plays quests; nil answers quest actions with a notice that quests are unavailable.
	Games Games
	// Builtins are the built-in operations, by name; the tree's Source must be told their
	// names (BuiltinNames) so that it refuses commands calling others.
	Builtins map[string]Builtin
	// Extensions handle the messages and presses the tree and the quest player leave.
	Extensions []Extension
	// Log receives the refused trees and failed calls.
	Log *slog.Logger
	// HTTPClient makes the requests of HTTP actions, each bounded by its action's timeout;
	// http.Client's defaults unless set.
	HTTPClient *http.Client
	// ProcedureTimeout bounds each stored-procedure call; DefaultProcedureTimeout unless set.
	ProcedureTimeout time.Duration
}

// DefaultProcedureTimeout bounds a stored-procedure call of the command tree.
const DefaultProcedureTimeout = 5 * time.Second

// maxCalls bounds the procedure and HTTP calls one update makes.
const maxCalls = 32

// Handler handles updates with the command tree.
type Handler struct {
	cfg         Config
	log         *slog.Logger
	http        *http.Client
	procTimeout time.Duration

	mu    sync.Mutex
	seen  map[int]int64 // the tree revision last logged, by service
	menus map[int]int64 // the tree revision the chats' own menus were last checked against
}

// New returns a handler.
func New(cfg Config) *Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	if cfg.ProcedureTimeout <= 0 {
		cfg.ProcedureTimeout = DefaultProcedureTimeout
	}
	return &Handler{cfg: cfg, log: cfg.Log, http: client, procTimeout: cfg.ProcedureTimeout, seen: map[int]int64{},
		menus: map[int]int64{}}
}

// Handle is the bot.Handler: it routes an update to the command tree or the quest player.
func (h *Handler) Handle(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.User == nil {
		return nil
	}
	tree, err := h.cfg.Source.Tree(ctx, u.Service)
	if err != nil {
		return err
	}
	if h.note(u.Service, tree) {
		// An operator changed the tree: the command menu may have changed too.
		if reqs, err := MenuRequests(tree); err == nil {
			if err := tx.Send(ctx, reqs...); err != nil {
				return err
			}
		}
	}
	if h.chatMenusDue(u.Service, tree.Revision) {
		// The chats' own menus too: once per revision and process, so also when the tree
		// changed while no process ran.
		if err := h.refreshChatMenus(ctx, tx, u.Service, tree); err != nil {
			return err
		}
	}
	switch {
	case u.CallbackQuery != nil:
		return h.press(ctx, tx, u, tree)
	case u.Message != nil:
		return h.message(ctx, tx, u, tree)
	}
	return nil
}

// note logs the problems of a tree the first time its revision is seen for a service, and
// reports whether the tree replaced an earlier revision.
func (h *Handler) note(service int, tree *scripts.Tree) bool {
	h.mu.Lock()
	old, known := h.seen[service]
	if known && old == tree.Revision {
		h.mu.Unlock()
		return false
	}
	h.seen[service] = tree.Revision
	h.mu.Unlock()
	for _, p := range tree.Problems {
		h.log.Error("Command refused: invalid tree", slog.Int("service_id", service),
			slog.String("command", p.Command), slog.Int64("action_id", p.Action), slog.String("problem", p.Msg))
	}
	return known
}

// chatMenusDue reports whether the chats' own menus of a service are to be checked against tree
// revision rev: the first time this handler sees the revision. (An update whose handling fails
// after the check rolls the check back with it; the menus then wait for the next revision or
// process.)
func (h *Handler) chatMenusDue(service int, rev int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.menus[service]; ok && old == rev {
		return false
	}
	h.menus[service] = rev
	return true
}

// Menu returns the setMyCommands requests of a bot's command menu, and logs the problems of its
// tree. It is called at start-up; later changes of the tree send the menu again by themselves.
func (h *Handler) Menu(ctx context.Context, service int) ([]bot.Request, error) {
	tree, err := h.cfg.Source.Tree(ctx, service)
	if err != nil {
		return nil, err
	}
	h.note(service, tree)
	return MenuRequests(tree)
}

// MenuRequests returns the setMyCommands requests of the visible commands of a tree: the English
// descriptions for everybody, and one list for each other language some description is in
// (falling back to English for the commands without one).
func MenuRequests(tree *scripts.Tree) ([]bot.Request, error) {
	langs := map[string]bool{}
	for _, c := range tree.Commands {
		if c.Visible {
			for l := range c.Descriptions {
				langs[l] = true
			}
		}
	}
	list := func(lang string) []bot.Command { return commandList(tree, lang) }
	r, err := bot.SetCommands("", list("en"))
	if err != nil {
		return nil, err
	}
	reqs := []bot.Request{r}
	others := make([]string, 0, len(langs))
	for l := range langs {
		if l != "en" {
			others = append(others, l)
		}
	}
	slices.Sort(others)
	for _, l := range others {
		r, err := bot.SetCommands(l, list(l))
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// commandList is the command menu of a tree in a language: the visible commands in order, with
// their descriptions in lang, or in English where they have none in it.
func commandList(tree *scripts.Tree, lang string) []bot.Command {
	var cmds []*scripts.Command
	for _, c := range tree.Commands {
		if c.Visible {
			cmds = append(cmds, c)
		}
	}
	slices.SortFunc(cmds, func(a, b *scripts.Command) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make([]bot.Command, 0, len(cmds))
	for _, c := range cmds {
		d := c.Descriptions[lang]
		if strings.TrimSpace(d) == "" {
			d = c.Descriptions["en"]
		}
		out = append(out, bot.Command{Command: c.Name, Description: truncate(d, 256)})
	}
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// message handles a text: a command starts its dialogue, anything else may answer a prompt.
func (h *Handler) message(ctx context.Context, tx bot.Tx, u *bot.Update, tree *scripts.Tree) error {
	m := u.Message
	lang := bot.Language(u.User.Language)
	if m.IsCommand() {
		name := strings.ToLower(m.Command())
		cmd := tree.Commands[name]
		if cmd == nil {
			if refused(tree, name) {
				return h.say(ctx, tx, u, textsFor(lang).unavailable)
			}
			return h.say(ctx, tx, u, textsFor(lang).unknown)
		}
		return h.start(ctx, tx, u, tree, cmd, m.CommandArguments())
	}
	if m.Text != "" {
		st, err := h.cfg.Contexts.Load(ctx, tx.DB(), u.Service, u.User.ID)
		if err != nil {
			return err
		}
		if st != nil && tree.WaitingKind(st) == scripts.KindInput {
			return h.drive(ctx, tx, u, tree, st, scripts.Input{Kind: scripts.InputText, Text: m.Text, MessageID: m.MessageID})
		}
	}
	for _, x := range h.cfg.Extensions {
		if handled, err := x.HandleMessage(ctx, tx, u); err != nil || handled {
			return err
		}
	}
	if m.Text == "" && m.Document == nil {
		return nil
	}
	return h.say(ctx, tx, u, textsFor(lang).hint)
}

// BuiltinNames returns the names of the handler's built-in operations, for the tree's Source.
func (h *Handler) BuiltinNames() []string {
	names := make([]string, 0, len(h.cfg.Builtins))
	for name := range h.cfg.Builtins {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// refused reports whether the tree refused a command of this name.
func refused(tree *scripts.Tree, name string) bool {
	for _, p := range tree.Problems {
		if p.Command == name {
			return true
		}
	}
	return false
}

// start starts a command, replacing the user's dialogue.
func (h *Handler) start(ctx context.Context, tx bot.Tx, u *bot.Update, tree *scripts.Tree, cmd *scripts.Command, args string) error {
	id, err := h.cfg.Contexts.NewID(ctx, tx.DB())
	if err != nil {
		return err
	}
	var dev bool
	err = tx.DB().QueryRow(ctx, `SELECT is_developer FROM user_service WHERE user_id = $1 AND service_id = $2`,
		u.User.ID, u.Service).Scan(&dev)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("developer flag of user %d: %w", u.User.ID, err)
	}
	name := u.User.FirstName
	if name == "" {
		name = u.User.Username
	}
	env := scripts.Env{User: u.User.ID, Service: u.Service, Lang: bot.Language(u.User.Language), Name: name,
		Developer: dev, Admin: u.User.IsAdmin}
	st := scripts.Start(tree, cmd, id, args, env)
	return h.drive(ctx, tx, u, tree, st, scripts.Input{})
}

// press handles a button press.
func (h *Handler) press(ctx context.Context, tx bot.Tx, u *bot.Update, tree *scripts.Tree) error {
	cq := u.CallbackQuery
	stale := bot.AnswerCallback(u.Chat, cq.ID, textsFor(bot.Language(u.User.Language)).stale)
	switch {
	case strings.HasPrefix(cq.Data, "q:") && h.cfg.Games != nil:
		handled, err := h.cfg.Games.HandleCallback(ctx, tx, u)
		if err != nil || handled {
			return err
		}
	case strings.HasPrefix(cq.Data, "m:"):
		st, err := h.cfg.Contexts.Load(ctx, tx.DB(), u.Service, u.User.ID)
		if err != nil {
			return err
		}
		if st != nil {
			msgID := 0
			if cq.Message != nil {
				msgID = cq.Message.MessageID
			}
			in := scripts.Input{Kind: scripts.InputChoice, Data: cq.Data, MessageID: msgID}
			if err := h.drive(ctx, tx, u, tree, st, in); !errors.Is(err, errStale) {
				return err
			}
		}
	default:
		for _, x := range h.cfg.Extensions {
			if handled, err := x.HandleCallback(ctx, tx, u); err != nil || handled {
				return err
			}
		}
	}
	return tx.Send(ctx, stale)
}

// errStale reports to press that the dialogue refused the input and nothing was done.
var errStale = errors.New("scriptbot: stale input")

// drive runs the dialogue until it waits for the user or ends, carrying out its effects and
// making its calls, then saves it.
func (h *Handler) drive(ctx context.Context, tx bot.Tx, u *bot.Update, tree *scripts.Tree, st *scripts.State, in scripts.Input) error {
	log := h.log.With(slog.Int("service_id", u.Service), slog.Int64("user_id", u.User.ID), slog.Int64("command_id", st.Command))
	lang := st.Values[scripts.ParamLang]
	for calls := 0; ; calls++ {
		effects, err := scripts.Run(tree, st, in)
		switch {
		case errors.Is(err, scripts.ErrStale), errors.Is(err, scripts.ErrUnexpected):
			return errStale
		case err != nil:
			// The tree changed under the dialogue, or a limit was hit: end it, say so.
			log.Warn("Dialogue ended", slog.Any("error", err))
			if err := h.cfg.Contexts.Delete(ctx, tx.DB(), u.Service, u.User.ID); err != nil {
				return err
			}
			return h.say(ctx, tx, u, textsFor(st.Values[scripts.ParamLang]).unavailable)
		}
		var call scripts.Effect
		if st.Pending != 0 && len(effects) > 0 {
			call, effects = effects[len(effects)-1], effects[:len(effects)-1]
		}
		if err := h.apply(ctx, tx, u, st, effects); err != nil {
			return err
		}
		if call == nil {
			break
		}
		if calls == maxCalls {
			log.Warn("Dialogue ended: too many calls in one update")
			st.Pending, st.Next = 0, 0
			break
		}
		res, err := h.call(ctx, tx, u, log, call)
		if err != nil {
			return err
		}
		in = scripts.Input{Kind: scripts.InputResult, Result: res}
	}
	if next := st.Values[scripts.ParamLang]; next != lang && next != "" {
		// The user chose another language (/lang): their chat's command menu follows it, over
		// the menu of their Telegram client's language.
		if err := h.chatMenu(ctx, tx, u, tree, next); err != nil {
			return err
		}
	}
	return h.cfg.Contexts.Save(ctx, tx.DB(), u.Service, u.User.ID, st)
}

// chatMenu sends the command menu of the update's chat in lang, and records it so that a change
// of the tree sends it again (refreshChatMenus).
func (h *Handler) chatMenu(ctx context.Context, tx bot.Tx, u *bot.Update, tree *scripts.Tree, lang string) error {
	req, err := bot.SetChatCommands(u.Chat, commandList(tree, lang))
	if err != nil {
		return err
	}
	_, err = tx.DB().Exec(ctx, `UPDATE user_service SET menu_language = $3, menu_revision = $4
		WHERE user_id = $1 AND service_id = $2`, u.User.ID, u.Service, lang, tree.Revision)
	if err != nil {
		return fmt.Errorf("chat menu of user %d: %w", u.User.ID, err)
	}
	return tx.Send(ctx, req)
}

// refreshChatMenus sends the chats that have a menu of their own (chatMenu) the menu of the
// tree, when it was built from another revision. It runs in the first update a handler sees of
// each revision; the rows it claims keep two processes from sending the same menus.
func (h *Handler) refreshChatMenus(ctx context.Context, tx bot.Tx, service int, tree *scripts.Tree) error {
	rows, err := tx.DB().Query(ctx, `
		UPDATE user_service us SET menu_revision = $2 FROM users u
		WHERE us.service_id = $1 AND us.menu_language IS NOT NULL AND us.menu_revision IS DISTINCT FROM $2
			AND u.id = us.user_id AND u.blocked_at IS NULL
		RETURNING u.chat_id, us.menu_language`, service, tree.Revision)
	if err != nil {
		return fmt.Errorf("chat menus: %w", err)
	}
	type chatMenu struct {
		chat int64
		lang string
	}
	menus, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (chatMenu, error) {
		var m chatMenu
		err := r.Scan(&m.chat, &m.lang)
		return m, err
	})
	if err != nil {
		return fmt.Errorf("chat menus: %w", err)
	}
	lists := map[string][]bot.Command{}
	reqs := make([]bot.Request, 0, len(menus))
	for _, m := range menus {
		list, ok := lists[m.lang]
		if !ok {
			list = commandList(tree, m.lang)
			lists[m.lang] = list
		}
		req, err := bot.SetChatCommands(m.chat, list)
		if err != nil {
			return err
		}
		reqs = append(reqs, req)
	}
	return tx.Send(ctx, reqs...)
}

// apply carries out effects in order.
func (h *Handler) apply(ctx context.Context, tx bot.Tx, u *bot.Update, st *scripts.State, effects []scripts.Effect) error {
	lang := st.Values[scripts.ParamLang]
	for _, e := range effects {
		var err error
		switch e := e.(type) {
		case scripts.SendText:
			err = h.sayRef(ctx, tx, u, e.Text, e.Ref)
		case scripts.ShowMenu:
			kb := make(bot.Keyboard, len(e.Rows))
			for i, row := range e.Rows {
				for _, b := range row {
					kb[i] = append(kb[i], bot.Button{Text: b.Label, Data: b.Data})
				}
			}
			var reqs []bot.Request
			if reqs, err = bot.SendHTML(u.Chat, e.Text, kb); err == nil {
				err = tx.Send(ctx, reqs...)
			}
		case scripts.DeleteMessage:
			err = tx.Send(ctx, bot.Delete(u.Chat, e.MessageID))
		case scripts.DeleteRef:
			err = tx.Send(ctx, bot.DeleteRef(u.Chat, e.Ref))
		case scripts.LaunchQuest:
			if h.cfg.Games == nil {
				err = h.say(ctx, tx, u, textsFor(lang).noQuests)
			} else {
				err = h.cfg.Games.Launch(ctx, tx, u, e.ScriptID)
			}
		case scripts.RefreshQuest:
			if h.cfg.Games != nil {
				_, err = h.cfg.Games.SwitchLanguage(ctx, tx, u, e.Lang)
			}
		case scripts.CancelQuest:
			if h.cfg.Games != nil {
				err = h.cfg.Games.Cancel(ctx, tx, u)
			}
		case scripts.RetryQuest:
			if h.cfg.Games == nil {
				err = h.say(ctx, tx, u, textsFor(lang).noQuests)
			} else {
				err = h.cfg.Games.Retry(ctx, tx, u)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// say sends an HTML text to the update's chat; an empty text sends nothing.
func (h *Handler) say(ctx context.Context, tx bot.Tx, u *bot.Update, text string) error {
	return h.sayRef(ctx, tx, u, text, "")
}

// sayRef is say with the message sent under ref (none when ref is empty), for a later deletion.
func (h *Handler) sayRef(ctx context.Context, tx bot.Tx, u *bot.Update, text, ref string) error {
	reqs, err := bot.SendHTML(u.Chat, text, nil)
	if errors.Is(err, bot.ErrEmpty) {
		return nil
	}
	if err != nil {
		return err
	}
	return tx.Send(ctx, bot.WithRef(ref, reqs...)...)
}

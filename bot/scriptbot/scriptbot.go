// Package scriptbot is the command tree in Telegram: slash commands and the answers to their
// prompts go to the command tree of package scripts, and so do presses of its menus ("m:..."
// callback data). The Router of package bot sends it what is its own: every command nobody else
// registered (HandleCommand), the presses of its menus (HandleMenu), the texts that answer a
// prompt (HandleText) and, last, the messages nobody took (HandleUnhandled, a hint); Refresh is
// middleware that keeps the command menus in step with the tree.
//
// The interpreter returns effects as data; Handler carries them out inside the update's
// transaction: texts and menus become outbox rows, quest effects become calls of Games, and a
// stored-procedure or HTTP call is made at once (the procedure through the transaction, behind a
// savepoint so that its failure rolls back only itself; the HTTP request with the action's
// timeout) and the interpreter is run again with its result, until the dialogue waits for the
// user or ends. The dialogue's state is saved with the update, so a restart continues it.
//
// The tree is read through the update's own transaction (its connection), never through a
// second connection of the pool while the update holds one.
//
// The prompt of a hidden parameter is sent under a message reference (bot.Request.Ref), so that
// once it is answered the prompt is deleted by reference along with the answer. When a dialogue
// changes the user's language (/lang), the chat gets its own command menu in that language, sent
// again whenever the command tree changes.
//
// A press of a menu that is no longer the one the dialogue waits on (an old message, another
// user's data, forged data) is answered with a short notice and changes nothing.
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
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/scripts/scriptpg"
)

// CallbackPrefix is the prefix of the callback data of the tree's menus.
const CallbackPrefix = "m"

// Games is the quest player, as the command tree uses it (bot/questplay implements it).
type Games interface {
	// Launch starts quest script scriptID for the user, replacing any running game, and sends
	// its first screen.
	Launch(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64) error
	// Cancel ends the user's running game.
	Cancel(ctx context.Context, tx bot.Tx, u *bot.Update) error
	// SwitchLanguage moves the running game to the same quest in lang, when it has that
	// translation, and reports whether it did.
	SwitchLanguage(ctx context.Context, tx bot.Tx, u *bot.Update, lang string) (bool, error)
	// Retry shows the current screen of the running game again, applying nothing.
	Retry(ctx context.Context, tx bot.Tx, u *bot.Update) error
}

// Builtin is an operation the command tree calls by name (action type builtin) for what SQL
// cannot do, such as the quest developers' tools, which need the running game and the files. It
// gets the action's request parameters by name and runs in the update's transaction; it may send
// messages itself (tx.Send). Its result is mapped into parameters and branched on as a stored
// procedure's: Result.Code picks the child. An error fails the update; a refusal or a bad
// argument is a result code, for the tree to answer.
type Builtin = func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error)

// Trees gives the command trees (scripts/scriptpg implements it).
type Trees interface {
	// Tree returns the tree of a bot, read through db. A tree with problems is returned with
	// them listed in Tree.Problems; errors are failures of the database.
	Tree(ctx context.Context, db scriptpg.DB, service int) (*scripts.Tree, error)
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

// Users keeps the users' roles and their chats' command menus (bot/botpg implements it).
type Users interface {
	Roles(ctx context.Context, db pgx.Tx, service int, user int64) (botpg.Roles, error)
	SetChatMenu(ctx context.Context, db pgx.Tx, service int, user int64, lang string, rev int64) error
	ClaimChatMenus(ctx context.Context, db pgx.Tx, service int, rev int64) ([]botpg.ChatMenu, error)
}

// Config configures a Handler.
type Config struct {
	// Trees gives the command trees; Contexts keeps the running dialogues.
	Trees    Trees
	Contexts Contexts
	// Users gives the users' roles; botpg's when nil.
	Users Users
	// Games plays quests; nil answers quest actions with a notice that quests are unavailable.
	Games Games
	// Builtins are the built-in operations, by name; the trees must be told their names
	// (BuiltinNames) so that they refuse commands calling others.
	Builtins map[string]Builtin
	// Log receives the refused trees and failed calls.
	Log *slog.Logger
	// HTTPClient makes the requests of HTTP actions, each bounded by its action's timeout;
	// http.Client's defaults unless set.
	HTTPClient *http.Client
	// ProcedureTimeout bounds each stored-procedure call; defaultProcedureTimeout unless set.
	ProcedureTimeout time.Duration
}

// defaultProcedureTimeout bounds a stored-procedure call of the command tree.
const defaultProcedureTimeout = 5 * time.Second

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
		cfg.ProcedureTimeout = defaultProcedureTimeout
	}
	if cfg.Users == nil {
		cfg.Users = botpg.NewUsers()
	}
	return &Handler{cfg: cfg, log: cfg.Log, http: client, procTimeout: cfg.ProcedureTimeout, seen: map[int]int64{},
		menus: map[int]int64{}}
}

// tree returns the update's command tree, read through its transaction.
func (h *Handler) tree(ctx context.Context, tx bot.Tx, u *bot.Update) (*scripts.Tree, error) {
	return h.cfg.Trees.Tree(ctx, tx.DB(), u.Service)
}

// Refresh is middleware for the router: before each update it sends the command menus again
// when an operator changed the tree, the bot's (setMyCommands) and the chats' own.
func (h *Handler) Refresh(next bot.Handler) bot.Handler {
	return func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.User != nil {
			tree, err := h.tree(ctx, tx, u)
			if err != nil {
				return err
			}
			if h.note(u.Service, tree) {
				// An operator changed the tree: the command menu may have changed too.
				if reqs, err := menuRequests(tree); err == nil {
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
		}
		return next(ctx, tx, u)
	}
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
func (h *Handler) Menu(ctx context.Context, db scriptpg.DB, service int) ([]bot.Request, error) {
	tree, err := h.cfg.Trees.Tree(ctx, db, service)
	if err != nil {
		return nil, err
	}
	h.note(service, tree)
	return menuRequests(tree)
}

// menuRequests returns the setMyCommands requests of the visible commands of a tree: the English
// descriptions for everybody, and one list for each other language some description is in
// (falling back to English for the commands without one).
func menuRequests(tree *scripts.Tree) ([]bot.Request, error) {
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

// HandleCommand starts the dialogue of a command of the tree; a command the tree lacks is
// answered that it is unknown (or unavailable, when the tree refused it).
func (h *Handler) HandleCommand(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	tree, err := h.tree(ctx, tx, u)
	if err != nil {
		return err
	}
	t := texts.For(u.User.Language).Tree
	cmd := tree.Commands[u.Command]
	if cmd == nil {
		if refused(tree, u.Command) {
			return h.say(ctx, tx, u, t.Unavailable)
		}
		return h.say(ctx, tx, u, t.Unknown)
	}
	return h.start(ctx, tx, u, tree, cmd, u.Args)
}

// HandleText takes a text that answers the prompt the user's dialogue waits on, and a text sent
// while the dialogue waits for a press of its menu, which ends the dialogue with a message
// saying so.
func (h *Handler) HandleText(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	m := u.Message
	if m.Text == "" {
		return false, nil
	}
	st, err := h.cfg.Contexts.Load(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil || st == nil {
		return false, err
	}
	tree, err := h.tree(ctx, tx, u)
	if err != nil {
		return false, err
	}
	switch tree.WaitingKind(st) {
	case scripts.KindInput:
		return true, h.drive(ctx, tx, u, tree, st, scripts.Input{Kind: scripts.InputText, Text: m.Text, MessageID: m.MessageID})
	case scripts.KindMenu, scripts.KindListMenu:
		// A text where a button is awaited ends the dialogue, saying so: the text was meant for
		// the dialogue, and passed on (to the admins, or as an admin's broadcast) it would do
		// what nobody asked for.
		if err := h.cfg.Contexts.Delete(ctx, tx.DB(), u.Service, u.User.ID); err != nil {
			return true, err
		}
		t := texts.For(st.Values[scripts.ParamLang])
		for name, c := range tree.Commands {
			if c.ID == st.Command {
				return true, h.say(ctx, tx, u, fmt.Sprintf(t.Tree.Abandoned, name, name))
			}
		}
		return true, h.say(ctx, tx, u, t.Tree.Unavailable)
	}
	return false, nil
}

// HandleUnhandled answers a text or a file that nothing took with a hint.
func (h *Handler) HandleUnhandled(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if m := u.Message; m == nil || m.Text == "" && m.Document == nil {
		return nil
	}
	return h.say(ctx, tx, u, texts.For(u.User.Language).Tree.Hint)
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
	roles, err := h.cfg.Users.Roles(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil {
		return err
	}
	name := u.User.FirstName
	if name == "" {
		name = u.User.Username
	}
	env := scripts.Env{User: u.User.ID, Service: u.Service, Lang: bot.Language(u.User.Language), Name: name,
		Developer: roles.Developer, Admin: u.User.IsAdmin}
	st := scripts.Start(tree, cmd, id, args, env)
	return h.drive(ctx, tx, u, tree, st, scripts.Input{})
}

// HandleMenu handles a press of a menu of the tree ("m:..." data) for the dialogue that waits on
// it; a press of any other menu is answered that it is no longer active, and changes nothing.
func (h *Handler) HandleMenu(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	st, err := h.cfg.Contexts.Load(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil {
		return err
	}
	if st != nil {
		tree, err := h.tree(ctx, tx, u)
		if err != nil {
			return err
		}
		msgID := 0
		if cq.Message != nil {
			msgID = cq.Message.MessageID
		}
		in := scripts.Input{Kind: scripts.InputChoice, Data: cq.Data, MessageID: msgID}
		if err := h.drive(ctx, tx, u, tree, st, in); !errors.Is(err, errStale) {
			return err
		}
	}
	return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, texts.For(u.User.Language).Tree.Stale))
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
			return h.say(ctx, tx, u, texts.For(st.Values[scripts.ParamLang]).Tree.Unavailable)
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
	if err := h.cfg.Users.SetChatMenu(ctx, tx.DB(), u.Service, u.User.ID, lang, tree.Revision); err != nil {
		return err
	}
	return tx.Send(ctx, req)
}

// refreshChatMenus sends the chats that have a menu of their own (chatMenu) the menu of the
// tree, when it was built from another revision. It runs in the first update a handler sees of
// each revision; the rows it claims keep two processes from sending the same menus.
func (h *Handler) refreshChatMenus(ctx context.Context, tx bot.Tx, service int, tree *scripts.Tree) error {
	menus, err := h.cfg.Users.ClaimChatMenus(ctx, tx.DB(), service, tree.Revision)
	if err != nil {
		return err
	}
	lists := map[string][]bot.Command{}
	reqs := make([]bot.Request, 0, len(menus))
	for _, m := range menus {
		list, ok := lists[m.Lang]
		if !ok {
			list = commandList(tree, m.Lang)
			lists[m.Lang] = list
		}
		req, err := bot.SetChatCommands(m.Chat, list)
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
				err = h.say(ctx, tx, u, texts.For(lang).Tree.NoQuests)
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
				err = h.say(ctx, tx, u, texts.For(lang).Tree.NoQuests)
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

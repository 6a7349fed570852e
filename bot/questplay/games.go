package questplay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/sessions"
)

// CallbackPrefix is the prefix of the callback data of quest buttons: "q:<game>:<step>:<action>".
const CallbackPrefix = "q"

// Store keeps the games, the credits and the catalogue as the quest player uses them
// (quest/questpg implements it). Every method works in the update's transaction db.
type Store interface {
	// Running returns the user's running game; questpg.ErrNoGame when there is none.
	Running(ctx context.Context, db pgx.Tx, service int, user int64) (*questpg.Game, error)
	// LockRunning is Running with the row locked; questpg.ErrNoGame also when game is not 0 and
	// the running game is another.
	LockRunning(ctx context.Context, db pgx.Tx, service int, user, game int64) (*questpg.Game, error)
	// Script returns a quest the bot offers; questpg.ErrNoScript when it does not.
	Script(ctx context.Context, db pgx.Tx, service int, id int64) (*questpg.Script, error)
	// Offered returns a quest the bot offers to everyone (listed or shipped); questpg.ErrNoScript
	// when it does not.
	Offered(ctx context.Context, db pgx.Tx, service int, id int64) (*questpg.Script, error)
	// Catalogue returns a page of the catalogue a user sees, and how many quests it has.
	Catalogue(ctx context.Context, db pgx.Tx, p questpg.Page) ([]questpg.Entry, int, error)
	// Translation returns the version of a quest in another language; questpg.ErrNoScript when
	// there is none.
	Translation(ctx context.Context, db pgx.Tx, service int, commonName, lang string) (*questpg.Script, error)
	// Step writes a game's new State, Step and Nonce where the row is still at prevNonce.
	Step(ctx context.Context, db pgx.Tx, g *questpg.Game, prevNonce int64) (bool, error)
	// Launch starts a counted game, staking stake(credits); Abandon gives the running one up.
	Launch(ctx context.Context, db pgx.Tx, g *questpg.Game, stake func(credits int64) int64) error
	Abandon(ctx context.Context, db pgx.Tx, service int, user int64) error
	// QueueStep and QueueEnd add a step or an ending of a game read at prevNonce to a batch.
	QueueStep(b *pgx.Batch, g *questpg.Game, prevNonce int64, done func(bool)) error
	QueueEnd(b *pgx.Batch, g *questpg.Game, prevNonce int64, st quest.Status, done func(bool))
	// SwitchScript moves the running game to another version of its quest.
	SwitchScript(ctx context.Context, db pgx.Tx, g *questpg.Game) error
	// PlayerNames and SetPlayerNames keep the names a user gives the player tags (settings.go).
	PlayerNames(ctx context.Context, db pgx.Tx, user int64) (questpg.Names, error)
	SetPlayerNames(ctx context.Context, db pgx.Tx, user int64, n questpg.Names) error
}

var _ Store = (*questpg.Store)(nil)

// ImageFinder finds the image files of quests outside the quest file's own folder.
type ImageFinder interface {
	// FindImage returns the file to show for image name in quest script (a catalogue row), or ""
	// when it knows none; the quest's own folder is looked in then. It is called while a screen
	// is built, in the update's transaction db, and must be quick.
	FindImage(ctx context.Context, db pgx.Tx, script int64, name string) string
}

// Config configures Games.
type Config struct {
	// Files opens the quest files (shared with the developers' tools).
	Files *questfs.Files
	// Store keeps the games; questpg's when nil.
	Store Store
	// Log receives the errors of broken quests; nil discards them.
	Log *slog.Logger
	// Now is the clock of the quests' dates and of the sessions' deadlines; nil is time.Now.
	Now func() time.Time
	// JoinTimeout and RoundTimeout are the defaults of multiplayer jumps that give none; the
	// sessions' own defaults when 0.
	JoinTimeout, RoundTimeout time.Duration
	// Images finds quest images beyond the quest's own folder (the images developers upload);
	// nil looks only beside the quest file.
	Images ImageFinder
}

// Games plays quests for Telegram users; safe for concurrent use.
type Games struct {
	files  *questfs.Files
	store  Store
	log    *slog.Logger
	now    func() time.Time
	live   *live
	mp     *sessions.QuestSessions
	images ImageFinder
	// seed gives the seed of a new game's random generator; tests fix it.
	seed func() string
}

// New returns the quest player of the bots.
func New(cfg Config) *Games {
	g := &Games{files: cfg.Files, store: cfg.Store, log: cfg.Log, now: cfg.Now, live: newLive(maxLive), images: cfg.Images}
	if g.files == nil {
		g.files = questfs.New("", 0)
	}
	if g.store == nil {
		g.store = questpg.New()
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.now == nil {
		g.now = time.Now
	}
	g.seed = func() string {
		var b [12]byte
		rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	g.mp = &sessions.QuestSessions{Now: g.now, JoinTimeout: cfg.JoinTimeout, RoundTimeout: cfg.RoundTimeout,
		Misfit: func(script int64, t sessions.Type, params int) {
			g.log.Error("Session type does not fit the quest: the quest is played against the bot",
				slog.Int64("script", script), slog.Int("type", t.ID), slog.Int("params", params))
		}}
	return g
}

// game is a user's running game as the player handles it.
type game struct {
	questpg.Game
	// mp is what a game of a multiplayer quest shows beyond its state (multi.go).
	mp *mpState
	// lead are the messages a step sends before the new screen, and passed the locations it
	// walked through since (the dagazbot dialect shows them, dialect.go); both belong to one
	// step and are never remembered with the game.
	lead   []bot.Request
	passed []quest.Passage
	// shown is the picture of the screen the chat shows last, "" for none or not known: the
	// next screen with the same picture is sent without it (screenReqs).
	shown string
	// params are the parameter lines of the screen the chat shows last, when paramsKnown: the
	// next screen shows those that changed (panelChanged); all of them when not known.
	params      []string
	paramsKnown bool
}

// info is what the player derives once from each quest file.
type info struct {
	// money is the index of the quest's active money parameter, -1 if none; moneyLimit the value
	// the quest starts it at (the most credits a game of it puts at stake).
	money      int
	moneyLimit int64
	// points are the multiplayer jumps (!session, !wait) by jump id (multi.go).
	points map[int]sessions.Point
	// layoutInfo is what the dagazbot dialect lays screens out by (dialect.go).
	layoutInfo
}

type infoKey struct{}

// compiled is a quest file ready to play with what the player derives from it.
type compiled struct {
	*questfs.Quest
	*info
}

// open returns the compiled quest of a catalogue file.
func (g *Games) open(file string) (*compiled, error) {
	q, err := g.files.Open(file)
	if err != nil {
		return nil, err
	}
	in := q.Derived(infoKey{}, func(q *questfs.Quest) any { return derive(q) }).(*info)
	return &compiled{Quest: q, info: in}, nil
}

// derive computes a quest's info.
func derive(q *questfs.Quest) *info {
	d := q.Doc
	in := &info{money: -1, layoutInfo: layoutInfo{ranks: map[int]int{}, orders: map[int]int32{},
		nexts: map[int]bool{}, widths: map[int]int{}, described: map[int]bool{}}}
	for i := range d.Params {
		p := &d.Params[i]
		if p.Active && p.IsMoney {
			// The quest player starts a money parameter at its maximum, at most 2000.
			in.money, in.moneyLimit = i, max(int64(min(p.Max, 2000)), 0)
			break
		}
	}
	empty := map[int32]bool{}
	for i := range d.Locations {
		l := &d.Locations[i]
		if l.IsEmpty {
			empty[l.ID] = true
		}
		if len(l.Texts) > 0 {
			if n := buttonsPerRow(l.Texts[0].Media.Image.Value); n > 0 {
				if _, seen := in.widths[int(l.ID)]; !seen {
					in.widths[int(l.ID)] = n
				}
			}
		}
	}
	// The rank of a jump is the position of the first jump of its location with its text.
	firstOfText := map[int32]map[string]int{}
	for i := range d.Jumps {
		j := &d.Jumps[i]
		id := int(j.ID)
		if _, seen := in.orders[id]; seen {
			continue // the player finds the first jump of an id
		}
		texts := firstOfText[j.From]
		if texts == nil {
			texts = map[string]int{}
			firstOfText[j.From] = texts
		}
		rank, ok := texts[j.Text]
		if !ok {
			rank = i
			texts[j.Text] = i
		}
		in.ranks[id], in.orders[id] = rank, j.ShowingOrder
		if isNextText(j.Text) {
			in.nexts[id] = true
		}
		if j.Description != "" && !empty[j.To] {
			in.described[id] = true
		}
	}
	for i := range d.Jumps {
		if p, ok := sessions.ParsePoint(d.Jumps[i].Text); ok {
			if in.points == nil {
				in.points = map[int]sessions.Point{}
			}
			in.points[int(d.Jumps[i].ID)] = p
		}
	}
	return in
}

// stake is the stake of a launch: the credits put into the quest's money parameter (the money
// rule of quest/questpg): all the credits up to the value the quest starts the parameter at.
func (c *compiled) stake(credits int64) int64 { return max(0, min(credits, c.moneyLimit)) }

// who is the user an update is about.
func who(u *bot.Update) (service int, user, chat int64, err error) {
	if u.User == nil {
		return 0, 0, 0, errors.New("questplay: update without a user")
	}
	chat = u.Chat
	if chat == 0 {
		chat = u.User.ChatID
	}
	return u.Service, u.User.ID, chat, nil
}

// name is the player's name in quest texts: the first name, else the username.
func name(u *bot.Update) string {
	if u.User.FirstName != "" {
		return u.User.FirstName
	}
	if u.User.Username != "" {
		return u.User.Username
	}
	return "Ranger"
}

func questLang(lang string) quest.Lang {
	if lang == "ru" {
		return quest.Russian
	}
	return quest.English
}

// player is who plays a game, for the quest's View: the player with real names in the script's
// language (quest.NamedPlayer), the planets and stars the user set in /settings, the player's
// name (as rangerMark, see render.go), the clock, and as <Money> the money parameter's value (0
// without one; the win bonus in the dagazbot dialect, as the original bot showed).
func (g *Games) player(gm *game) quest.Player {
	m := money(&gm.State, gm.MoneyParam)
	if gm.MoneyParam < 0 && dagaz(gm) {
		m = gm.Script.WinBonus
	}
	p := g.playerIn(gm.Script.Lang, m)
	applyNames(&p, gm.Names)
	return p
}

// ranger is the player's name in a game's texts: the one a developer set on the game, else the
// one the user set in /settings, else fallback (the user's Telegram name).
func (gm *game) ranger(fallback string) string {
	switch {
	case gm.Ranger != "":
		return gm.Ranger
	case gm.Names.Ranger != "":
		return gm.Names.Ranger
	}
	return fallback
}

// playerIn is the player in a language, with money for <Money>.
func (g *Games) playerIn(lang string, money int64) quest.Player {
	p := quest.NamedPlayer(questLang(lang), g.now())
	p.Ranger, p.Player = rangerMark, rangerMark
	p.Money = strconv.FormatInt(money, 10)
	return p
}

// money is the current value of a game's money parameter, 0 without one.
func money(s *quest.State, idx int) int64 {
	if idx >= 0 && idx < len(s.Params) {
		return int64(s.Params[idx])
	}
	return 0
}

// screenOf builds the requests of a game's current screen: what the step sends before it (the
// game's lead, the multiplayer notices, the locations it passed through), then the screen.
func (g *Games) screenOf(ctx context.Context, db pgx.Tx, chat int64, c *compiled, gm *game, name string) (quest.View, []bot.Request, error) {
	passages, err := g.passages(ctx, db, chat, c, gm, name)
	if err != nil {
		return quest.View{}, nil, err
	}
	v, reqs, err := g.viewReqs(ctx, db, chat, c, gm, name, true)
	if err != nil {
		return v, nil, err
	}
	return v, append(slices.Clip(gm.lead), g.multiScreen(gm, passages, reqs)...), nil
}

// passages are the messages of the locations a step passed through (passageReqs); when they
// show a picture, the screen after them shows its own again.
func (g *Games) passages(ctx context.Context, db pgx.Tx, chat int64, c *compiled, gm *game, name string) ([]bot.Request, error) {
	reqs, err := g.passageReqs(ctx, db, chat, c, gm, name, gm.passed)
	for _, r := range reqs {
		if r.FilePath != "" {
			gm.shown = ""
		}
	}
	return reqs, err
}

// viewReqs builds the requests that show a game's current view (screenReqs), with its buttons
// unless not buttons.
func (g *Games) viewReqs(ctx context.Context, db pgx.Tx, chat int64, c *compiled, gm *game, name string, buttons bool) (quest.View, []bot.Request, error) {
	v, sc, err := g.build(ctx, db, c, gm, name, buttons, panelChanged)
	if err != nil {
		return v, nil, err
	}
	reqs, err := screenReqs(chat, sc, gm)
	return v, reqs, err
}

// screenReqs are the requests of a screen, so that a step is one message where it can be:
//
//   - without a picture, or with the picture the chat shows last (gm.shown: the screen before
//     had the same), the text with the buttons;
//   - with a picture and a text that fits a caption (1024 characters), one photo with the text
//     as its caption and the buttons under it; should the photo fail (its file gone, Telegram
//     refusing it), the text with the buttons is sent in its place;
//   - with a picture and a longer text, the photo, then the text with the buttons.
func screenReqs(chat int64, sc screen, gm *game) ([]bot.Request, error) {
	img := sc.image
	if img == gm.shown {
		img = ""
	}
	gm.shown = sc.image
	msgs, err := bot.SendHTML(chat, sc.html, sc.kb)
	if err != nil || img == "" {
		return msgs, err
	}
	if r, err := bot.SendPhoto(chat, img, sc.html, sc.kb); err == nil {
		r.OnFailure = msgs
		return []bot.Request{r}, nil
	} else if !errors.Is(err, bot.ErrTooLong) {
		return nil, err
	}
	r, err := bot.SendPhoto(chat, img, "", nil)
	if err != nil {
		return nil, err
	}
	return append([]bot.Request{r}, msgs...), nil
}

// build builds a game's current view and its screen (with its buttons unless not buttons), with
// the parameter lines pn says. A screen that shows only the parameters that changed has a button
// for all of them (paramsAction) when some are not shown; the lines it shows become the ones the
// next screen is compared with.
func (g *Games) build(ctx context.Context, db pgx.Tx, c *compiled, gm *game, name string, buttons bool, pn panel) (quest.View, screen, error) {
	name = gm.ranger(name)
	v, err := c.ViewWith(gm.State, g.player(gm), options(gm, nil))
	if err != nil {
		return v, screen{}, err
	}
	dropDefaultTexts(&v, gm.State.Phase, gm)
	g.multiView(c, gm, &v, name)
	width := 0
	if dagaz(gm) {
		width = c.arrange(&gm.State, &v)
	}
	shown := v
	if !buttons {
		shown.Choices = nil
	}
	switch {
	case pn == panelNone:
		shown.Params = nil
	case pn == panelChanged && gm.paramsKnown:
		shown.Params = changedParams(v.Params, gm.params)
	}
	if pn != panelNone {
		gm.params, gm.paramsKnown = v.Params, true
	}
	sc := render(c, shown, gm.ID, gm.Step, name, width)
	t := texts.For(gm.Script.Lang)
	if buttons && v.Status.Over() && !gm.Sandbox {
		// An ending offers the quest again, and the catalogue.
		sc.kb = bot.Keyboard{{{Text: t.Quest.PlayAgain, Data: CataloguePrefix + ":r:" + strconv.FormatInt(gm.Script.ID, 10)}},
			{{Text: t.Quest.Another, Data: CataloguePrefix + ":l"}}}
	} else if buttons && !v.Status.Over() && len(shown.Params) < len(v.Params) {
		sc.kb = append(sc.kb, []bot.Button{{Text: t.Quest.Params, Data: buttonData(gm.ID, gm.Step, paramsAction)}})
	}
	g.findImage(ctx, db, gm.Script.ID, v, &sc)
	return v, sc, nil
}

// showParams answers a press of a screen's parameters button: the screen pressed is edited to
// show all the parameters, its buttons kept (but that one); when the screen with all of them
// would not fit its message (or caption), they come in a message of their own. Nothing of the
// game changes.
func (g *Games) showParams(ctx context.Context, tx bot.Tx, chat int64, cq *tgbotapi.CallbackQuery, c *compiled, gm *game, name string) error {
	reqs := []bot.Request{bot.AnswerCallback(chat, cq.ID, "")}
	v, sc, err := g.build(ctx, tx.DB(), c, gm, name, true, panelAll)
	if err != nil {
		return err
	}
	var edit bot.Request
	if m := cq.Message; m != nil && len(m.Photo) > 0 && m.Caption != "" {
		edit, err = bot.EditCaption(chat, m.MessageID, sc.html, sc.kb)
	} else if m != nil && len(m.Photo) == 0 && len(bot.SplitHTML(sc.html, bot.MaxTextLen)) == 1 {
		edit, err = bot.EditHTML(chat, m.MessageID, sc.html, sc.kb)
	} else {
		err = bot.ErrTooLong
	}
	if err == nil {
		reqs = append(reqs, edit)
	} else if p := paramsHTML(v.Params, escape(name)); p != "" {
		msgs, err := bot.SendHTML(chat, p, nil)
		if err != nil {
			return err
		}
		reqs = append(reqs, msgs...)
	}
	return tx.Send(ctx, reqs...)
}

// leftScreen is the edit of a screen the player left by choosing action: its text (or caption)
// stays, with the choice made under it instead of the buttons. left is the screen as it was
// shown, built again from the game as it was (what showing it never changes), nil when it
// could not be; then, or when the text would be too long for one message (or caption), and in
// a multiplayer quest, whose screens show what the sessions said then, the edit only takes the
// buttons away. The edit is aside (Request.Aside): the new screen goes first, and the edit
// follows when Telegram's limits allow. Under load it may wait until the player steps again; the
// newer step's edit then drops it (the state of the game's screens left), and the older screen
// keeps its buttons, which answer that the choice is no longer available: the player's wait
// matters more than the transcript of the screen before last.
func (g *Games) leftScreen(chat int64, msg *tgbotapi.Message, c *compiled, gm *game, left *shownScreen, action int, name string) (bot.Request, error) {
	r, err := g.leftEdit(chat, msg, c, gm, left, action, name)
	if err != nil {
		return r, err
	}
	r.Aside = true
	r.State = "quest-left:" + strconv.FormatInt(gm.ID, 10)
	return r, nil
}

func (g *Games) leftEdit(chat int64, msg *tgbotapi.Message, c *compiled, gm *game, left *shownScreen, action int, name string) (bot.Request, error) {
	photo := len(msg.Photo) > 0
	if len(c.points) == 0 && left != nil {
		for _, ch := range left.v.Choices {
			if ch.JumpID != action {
				continue
			}
			label := plainText(ch.Text, name)
			chosen := "\n\n" + escape(fmt.Sprintf(texts.For(gm.Script.Lang).Quest.Chosen, label))
			if photo {
				if msg.Caption == "" {
					break // the picture of a longer screen, whose text followed it
				}
				if r, err := bot.EditCaption(chat, msg.MessageID, left.sc.html+chosen, nil); err == nil {
					return r, nil
				}
				break
			}
			parts := bot.SplitHTML(left.sc.html, bot.MaxTextLen)
			if r, err := bot.EditHTML(chat, msg.MessageID, parts[len(parts)-1]+chosen, nil); err == nil {
				return r, nil
			}
		}
	}
	return bot.EditKeyboard(chat, msg.MessageID, nil)
}

// shownScreen is a screen as it was shown: the view and its rendering.
type shownScreen struct {
	v  quest.View
	sc screen
}

// autoNext takes, in the dagazbot dialect, the "Next" of each screen that offers nothing else,
// at most maxAutoNext times and never at a multiplayer point: each such screen goes to the
// game's lead without its button, after the locations passed before it.
func (g *Games) autoNext(ctx context.Context, db pgx.Tx, chat int64, c *compiled, gm *game, name string) error {
	if !dagaz(gm) {
		return nil
	}
	for range maxAutoNext {
		if _, _, at := pointAt(c, gm.State); at {
			return nil
		}
		v, err := c.ViewWith(gm.State, g.player(gm), options(gm, nil))
		if err != nil {
			return err
		}
		id, ok := c.loneNext(&v)
		if !ok {
			return nil
		}
		passages, err := g.passages(ctx, db, chat, c, gm, name)
		if err != nil {
			return err
		}
		_, screen, err := g.viewReqs(ctx, db, chat, c, gm, name, false)
		if err != nil {
			return err
		}
		gm.lead = append(append(gm.lead, passages...), screen...)
		gm.passed = nil
		next, err := c.PerformWith(gm.State, id, options(gm, func(p quest.Passage) { gm.passed = append(gm.passed, p) }))
		if err != nil {
			return err
		}
		gm.State = next
		gm.Moves = append(gm.Moves, questlog.Act(id))
	}
	return nil
}

// findImage puts into sc the image the ImageFinder gives for the view's image, if any.
func (g *Games) findImage(ctx context.Context, db pgx.Tx, script int64, v quest.View, sc *screen) {
	name := strings.TrimSpace(v.Image)
	if g.images == nil || name == "" {
		return
	}
	if _, err := strconv.Atoi(name); err == nil {
		return // a number of buttons a row, not an image (render.go)
	}
	if p := g.images.FindImage(ctx, db, script, name); p != "" {
		sc.image = p
	}
}

// show sends a game's current screen.
func (g *Games) show(ctx context.Context, tx bot.Tx, chat int64, c *compiled, gm *game, name string) error {
	_, reqs, err := g.screenOf(ctx, tx.DB(), chat, c, gm, name)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// apology sends a short plain text.
func (g *Games) apology(ctx context.Context, tx bot.Tx, chat int64, text string) error {
	reqs, err := bot.SendHTML(chat, escape(text), nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// Launch starts quest scriptID (a catalogue row) for the update's user, replacing any running
// game (whose multiplayer session's other players are told at once, quitSession), and sends
// the first screen. A quest the bot does not offer, or whose file cannot be
// played, gets an apology and changes nothing.
func (g *Games) Launch(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	db := tx.DB()
	sc, err := g.store.Script(ctx, db, service, scriptID)
	if errors.Is(err, questpg.ErrNoScript) {
		return g.apology(ctx, tx, chat, texts.For(u.User.Language).Error(err))
	}
	if err != nil {
		return fmt.Errorf("questplay: launch: %w", err)
	}
	c, err := g.open(sc.File)
	if err != nil {
		g.log.Error("Quest cannot be loaded", slog.Int64("script", scriptID), slog.Any("error", err))
		return g.apology(ctx, tx, chat, texts.For(sc.Lang).Error(err))
	}
	st, err := c.Start(g.seed())
	if err != nil {
		g.log.Error("Quest cannot start", slog.Int64("script", scriptID), slog.Any("error", err))
		return g.apology(ctx, tx, chat, texts.For(sc.Lang).Error(fmt.Errorf("%w: %w", questfs.ErrUnplayable, err)))
	}
	if err := g.quitSession(ctx, tx, service, user); err != nil {
		return err
	}
	g.live.forget(service, user)
	names, err := g.store.PlayerNames(ctx, db, user)
	if err != nil {
		return fmt.Errorf("questplay: launch: %w", err)
	}
	gm := &game{Game: questpg.Game{Service: service, User: user, Script: *sc, State: st, MoneyParam: c.money, Names: names}}
	if err := g.store.Launch(ctx, db, &gm.Game, c.stake); err != nil {
		return fmt.Errorf("questplay: %w", err)
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		return fmt.Errorf("questplay: launch script %d: %w", scriptID, err)
	}
	g.live.put(service, user, *gm)
	return nil
}

// running returns the user's running game, nil when there is none.
func (g *Games) running(ctx context.Context, db pgx.Tx, service int, user int64) (*game, error) {
	gm, err := g.store.Running(ctx, db, service, user)
	if errors.Is(err, questpg.ErrNoGame) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("questplay: %w", err)
	}
	return &game{Game: *gm}, nil
}

// runningScript reports the user's running game in this bot, if any.
func (g *Games) runningScript(ctx context.Context, tx bot.Tx, u *bot.Update) (scriptID int64, ok bool, err error) {
	service, user, _, err := who(u)
	if err != nil {
		return 0, false, err
	}
	gm, err := g.running(ctx, tx.DB(), service, user)
	if err != nil || gm == nil {
		return 0, false, err
	}
	return gm.Script.ID, true, nil
}

// Cancel ends the user's running game without a result (quest/questpg says what happens to its
// money); the other players of its multiplayer session are told at once (quitSession). Its
// buttons left in the chat are stale from then on. Without a game it does nothing.
func (g *Games) Cancel(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	service, user, _, err := who(u)
	if err != nil {
		return err
	}
	if err := g.quitSession(ctx, tx, service, user); err != nil {
		return err
	}
	g.live.forget(service, user)
	return g.store.Abandon(ctx, tx.DB(), service, user)
}

// Retry shows the current screen of the running game again and applies nothing: the screen is
// rebuilt from the stored state, which showing never changes; the game's step moves on, so that
// the buttons of the screen shown before are stale (a multiplayer quest's, whose screens follow
// its session, keep theirs). Without a game it says so. It is also how a game changed by hand (a
// developer's sandbox) is shown.
func (g *Games) Retry(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	return g.showAgain(ctx, tx, u, true)
}

// Show shows the current screen of a game just started or restored by hand (a developer's
// sandbox): Retry, but the step stays, since no screen of the game was shown before.
func (g *Games) Show(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	return g.showAgain(ctx, tx, u, false)
}

// showAgain is Retry, moving the game's step on when stale is set.
func (g *Games) showAgain(ctx context.Context, tx bot.Tx, u *bot.Update, stale bool) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	gm, err := g.running(ctx, tx.DB(), service, user)
	if err != nil {
		return err
	}
	if gm == nil {
		return g.apology(ctx, tx, chat, texts.For(u.User.Language).Quest.NoGame)
	}
	c, err := g.open(gm.Script.File)
	if err != nil {
		g.log.Error("Quest cannot be loaded", slog.Int64("script", gm.Script.ID), slog.Any("error", err))
		return g.apology(ctx, tx, chat, texts.For(gm.Script.Lang).Error(err))
	}
	if shown, err := g.multiShow(ctx, tx, u, c, gm); err != nil || shown {
		return err
	}
	if stale && len(c.points) == 0 {
		// The screen shown again is the current one: the buttons of the one shown before are
		// stale from now on (a press of them is refused), so that only one screen plays.
		prev := gm.Nonce
		gm.Step++
		gm.Nonce = questpg.NewNonce()
		g.live.forget(service, user)
		if ok, err := g.store.Step(ctx, tx.DB(), &gm.Game, prev); err != nil {
			return fmt.Errorf("questplay: retry: %w", err)
		} else if !ok {
			return g.apology(ctx, tx, chat, texts.For(gm.Script.Lang).Quest.Stale)
		}
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		g.log.Error("Quest screen failed", slog.Int64("script", gm.Script.ID), slog.Any("error", err))
		return g.apology(ctx, tx, chat, texts.For(gm.Script.Lang).Error(err))
	}
	return nil
}

// SwitchLanguage continues the running game in the version of the same quest (same common name)
// in lang, if one exists (the "refresh" action); reports whether it switched. The versions must
// have the same structure (the game's state must fit the other file); otherwise nothing changes.
func (g *Games) SwitchLanguage(ctx context.Context, tx bot.Tx, u *bot.Update, lang string) (bool, error) {
	service, user, chat, err := who(u)
	if err != nil {
		return false, err
	}
	db := tx.DB()
	gm, err := g.running(ctx, db, service, user)
	if err != nil || gm == nil || gm.Script.Lang == lang {
		return false, err
	}
	sc, err := g.store.Translation(ctx, db, service, gm.Script.CommonName, lang)
	if errors.Is(err, questpg.ErrNoScript) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("questplay: switch language: %w", err)
	}
	c, err := g.open(sc.File)
	if err != nil || c.money != gm.MoneyParam || c.ParamsCount() != len(gm.State.Params) {
		if err != nil {
			g.log.Error("Quest cannot be loaded", slog.Int64("script", sc.ID), slog.Any("error", err))
		}
		return false, nil
	}
	if _, err := c.View(gm.State, g.playerIn(lang, 0)); err != nil {
		return false, nil // the other version does not fit this game's state
	}
	gm.Script = *sc
	gm.Step++
	gm.Nonce = questpg.NewNonce()
	g.live.forget(service, user)
	if err := g.store.SwitchScript(ctx, db, &gm.Game); err != nil {
		return false, fmt.Errorf("questplay: %w", err)
	}
	if err := g.multiNames(ctx, tx, c, gm); err != nil {
		return false, err
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		return false, fmt.Errorf("questplay: switch language: %w", err)
	}
	return true, nil
}

// buttonData is the callback data of a quest button.
func buttonData(gameID int64, step, action int) string {
	return CallbackPrefix + ":" + strconv.FormatInt(gameID, 36) + ":" + strconv.Itoa(step) + ":" + strconv.Itoa(action)
}

// parseData reads callback data "q:<game>:<step>:<action>".
func parseData(data string) (gameID int64, step, action int, ok bool) {
	rest, found := strings.CutPrefix(data, CallbackPrefix+":")
	if !found {
		return 0, 0, 0, false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	gameID, err1 := strconv.ParseInt(parts[0], 36, 64)
	s, err2 := strconv.ParseInt(parts[1], 10, 32)
	a, err3 := strconv.ParseInt(parts[2], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, 0, false
	}
	return gameID, int(s), int(a), true
}

// HandleCallback handles a press of a quest button ("q:..." data). Every press is answered. A
// press is performed only when it belongs to the current screen of the running game and is one
// of its active choices; anything else is answered "this choice is no longer available" and
// changes nothing.
//
// The game is taken from memory when this process remembers it at the pressed step, else read;
// the new state is written only where the row is still the one the step started from (its
// nonce), so a step costs one statement when the game is remembered and two when it is not.
func (g *Games) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	answer := func(lang string, err error) error {
		return tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, texts.For(lang).Error(err)))
	}
	stale := func(lang string) error { return answer(lang, quest.ErrNotAChoice) }
	gameID, step, action, ok := parseData(cq.Data)
	if !ok {
		return stale(u.User.Language)
	}
	db := tx.DB()
	gm, remembered := g.live.get(service, user)
	if !remembered || gm.ID != gameID || gm.Step != step {
		// Not remembered at this step (the memory may also be ahead of a rolled-back step).
		loaded, err := g.running(ctx, db, service, user)
		if err != nil {
			return err
		}
		if loaded == nil {
			g.live.forget(service, user)
			return stale(u.User.Language)
		}
		gm, remembered = *loaded, false
	}
	if gm.ID != gameID || gm.Step != step {
		g.live.put(service, user, gm)
		text, err := g.staleAnswer(ctx, tx, &gm)
		if err != nil {
			return err
		}
		return tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, text))
	}
	lang := gm.Script.Lang
	c, err := g.open(gm.Script.File)
	if err != nil {
		g.log.Error("Quest cannot be loaded", slog.Int64("script", gm.Script.ID), slog.Any("error", err))
		return answer(lang, err)
	}
	if action == paramsAction {
		return g.showParams(ctx, tx, chat, cq, c, &gm, name(u))
	}
	if _, ok := c.points[action]; ok {
		// A multiplayer jump is taken only when its session says so (multi.go); its button on
		// a waiting screen tells what the game waits for.
		text, err := g.staleAnswer(ctx, tx, &gm)
		if err != nil {
			return err
		}
		return tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, text))
	}
	old := gm.State
	var passed []quest.Passage
	next, err := c.PerformWith(old, action, options(&gm, func(p quest.Passage) { passed = append(passed, p) }))
	if err != nil {
		if !errors.Is(err, quest.ErrNotAChoice) {
			g.log.Error("Quest step failed", slog.Int64("script", gm.Script.ID), slog.Int("action", action), slog.Any("error", err))
		}
		return answer(lang, err)
	}
	prev := gm
	// The screen left, as it was shown: its picture is the one the chat shows last, and its
	// edit shows the choice made.
	var left *shownScreen
	if cq.Message != nil && len(c.points) == 0 {
		if v, sc, err := g.build(ctx, db, c, &prev, name(u), false, panelNone); err == nil {
			left = &shownScreen{v: v, sc: sc}
			gm.shown = sc.image
			gm.params, gm.paramsKnown = v.Params, true
		}
	}
	gm.State = next
	gm.Step++
	gm.Nonce = questpg.NewNonce()
	gm.passed = passed
	gm.Moves = []questlog.Move{questlog.Act(action)}
	if err := g.autoNext(ctx, db, chat, c, &gm, name(u)); err != nil {
		g.log.Error("Quest step failed", slog.Int64("script", gm.Script.ID), slog.Int("action", action), slog.Any("error", err))
		return answer(lang, err)
	}
	if retry, err := g.multiStep(ctx, tx, u, c, &gm, prev.Nonce); err != nil {
		return err
	} else if retry {
		g.live.forget(service, user)
		if remembered {
			return g.HandleCallback(ctx, tx, u)
		}
		return stale(lang)
	}
	v, screen, err := g.screenOf(ctx, db, chat, c, &gm, name(u))
	if err != nil {
		// The new state cannot be shown (a broken formula in its text): keep the old one.
		g.log.Error("Quest screen failed", slog.Int64("script", gm.Script.ID), slog.Any("error", err))
		return answer(lang, err)
	}

	var done bool
	b := &pgx.Batch{}
	if v.Status.Over() {
		g.store.QueueEnd(b, &gm.Game, prev.Nonce, v.Status, func(ok bool) { done = ok })
	} else if err := g.store.QueueStep(b, &gm.Game, prev.Nonce, func(ok bool) { done = ok }); err != nil {
		return err
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: step: %w", err)
	}
	if !done {
		g.live.forget(service, user)
		if remembered {
			// The row changed behind the memory: read it and judge the press again.
			return g.HandleCallback(ctx, tx, u)
		}
		return stale(lang)
	}

	// The answer, the new screen, then the screen left without its buttons, aside: every screen
	// of the story stays in the chat, in every dialect.
	reqs := make([]bot.Request, 0, len(screen)+2)
	reqs = append(append(reqs, bot.AnswerCallback(chat, cq.ID, "")), screen...)
	if m := cq.Message; m != nil {
		if r, err := g.leftScreen(chat, m, c, &prev, left, action, name(u)); err == nil {
			reqs = append(reqs, r)
		}
	}
	if err := tx.Send(ctx, reqs...); err != nil {
		return err
	}
	if v.Status.Over() {
		g.live.forget(service, user)
	} else {
		gm.lead, gm.passed, gm.Moves = nil, nil, nil
		g.live.put(service, user, gm)
	}
	return nil
}

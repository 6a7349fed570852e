package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// # Tournaments in Telegram
//
// /tournaments (a command of the tree, seeded by migration 031: the built-in board.tournaments)
// lists the tournaments open to join and those running, each with its join link
// (t.me/<bot>?start=t<id>) and, for those not started, a button to join or to leave
// ("tn:j:<id>", "tn:l:<id>"). /tournament creates one (admins, and users when the bot allows
// it; the syntax is texts.Tournament.Usage):
//
//	/tournament new swiss ROUNDS GAME CLOCK [in MINUTES] [max N]
//	/tournament new roundrobin GAME CLOCK [in MINUTES] [max N]
//	/tournament new arena MINUTES GAME CLOCK [in MINUTES] [max N]
//	/tournament allow on|off    (admins: whether users may create tournaments)
//	/tournament limit N         (admins: how many open tournaments each user may have)
//
// GAME is a game of /games ("russian", "chess", ...), CLOCK "M+S" (Fischer, e.g. 5+3) or a
// clock of the catalogue with a clock ("blitz10+5"); "in" sets the start that many minutes
// from now (5 by default), "max" the most players.
//
// Every player (a person: programs read the API) has one standings message per tournament,
// sent under the ref "tournament:<id>" when it starts and edited in place (with the state of the
// same name, so an older edit still queued is superseded) after each result and pairing: their
// rank, score and tie-breaks, the round, and their current game. A message too old to edit
// (refreshAfter) is sent anew. At the end every player is told their place and score.

// TournamentPrefix is the callback prefix of the tournaments' buttons.
const TournamentPrefix = "tn"

// standingsShown is how many lines of the standings a message shows (the player's own line is
// added when it is further down).
const standingsShown = 10

// Tournaments is the tournaments in Telegram: the commands, the buttons and the standings
// messages. Safe for concurrent use.
type Tournaments struct {
	tn  *boards.Tournaments
	svc *boards.Boards
	log *slog.Logger
}

// NewTournaments returns the Telegram view of the tournaments tn, and adds it to tn's views.
func NewTournaments(tn *boards.Tournaments, log *slog.Logger) *Tournaments {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &Tournaments{tn: tn, svc: tn.Boards(), log: log}
	tn.AddView(serviceTournaments{v})
	return v
}

// serviceTournaments is the view as the service hands it its changes (boards.TournamentView),
// in the bot's transaction (botTx).
type serviceTournaments struct{ v *Tournaments }

func (s serviceTournaments) TournamentChanged(ctx context.Context, tx boards.Tx, ch *boards.TournamentChange) error {
	t, err := botTx(tx)
	if err != nil {
		return err
	}
	return s.v.TournamentChanged(ctx, t, ch)
}

// tournamentRef is the ref and the state of a player's standings message.
func tournamentRef(id int64) string { return fmt.Sprintf("tournament:%d", id) }

// joinLink is the deep link that joins a tournament.
func joinLink(botName string, id int64) string {
	return fmt.Sprintf("https://t.me/%s?start=t%d", botName, id)
}

// tournamentError words a refusal of the tournaments; "" for an error that is no refusal of
// theirs.
func tournamentError(t *texts.Tournament, err error) string {
	switch {
	case errors.Is(err, boards.ErrNoTournament):
		return t.ErrNotFound
	case errors.Is(err, boards.ErrTournamentStarted):
		return t.ErrStarted
	case errors.Is(err, boards.ErrTournamentFull):
		return t.ErrFull
	case errors.Is(err, boards.ErrEntered):
		return t.ErrEntered
	case errors.Is(err, boards.ErrNotEntered):
		return t.ErrNotEntered
	case errors.Is(err, boards.ErrMayNotCreate):
		return t.ErrMayNotCreate
	case errors.Is(err, boards.ErrTooManyOpen):
		return t.ErrTooMany
	case errors.Is(err, board.ErrInvalid), errors.Is(err, board.ErrNotFound):
		return fmt.Sprintf(t.ErrInvalid, err.Error())
	}
	return ""
}

// Builtins are the tournaments' built-ins of the command tree: "board.tournaments", the list
// (/tournaments, seeded by migration 031), which sends its answer itself (result code "list").
func (v *Tournaments) Builtins() map[string]Builtin {
	return map[string]Builtin{"board.tournaments": v.listBuiltin}
}

// listBuiltin is the built-in of /tournaments.
func (v *Tournaments) listBuiltin(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	if err := v.HandleList(ctx, tx, u); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "list"}, nil
}

// HandleList sends the list of /tournaments: the tournaments open and running, with buttons
// and links.
func (v *Tournaments) HandleList(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	text, kb, err := v.list(ctx, tx, u)
	if err != nil {
		return err
	}
	reqs, err := bot.SendHTML(u.Chat, text, kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// maxTournamentsListed bounds the tournaments /tournaments lists.
const maxTournamentsListed = 20

// list is the text and the keyboard of /tournaments for the user of u.
func (v *Tournaments) list(ctx context.Context, tx bot.Tx, u *bot.Update) (string, bot.Keyboard, error) {
	c := texts.For(u.User.Language)
	t := c.Tournament()
	st := v.tn.Store(tx.DB())
	list, err := st.List(ctx, u.Service, []tournament.State{tournament.Created, tournament.Running}, maxTournamentsListed)
	if err != nil {
		return "", nil, err
	}
	if len(list) == 0 {
		return t.None, nil, nil
	}
	lines := []string{t.List}
	var kb bot.Keyboard
	for _, tt := range list {
		es, err := st.Entrants(ctx, tt.ID)
		if err != nil {
			return "", nil, err
		}
		in := slices.ContainsFunc(es, func(e tournament.Entrant) bool { return e.User == u.User.ID })
		state := t.Running
		if tt.State == tournament.Created {
			state = fmt.Sprintf(t.Open, tt.StartsAt.UTC().Format("2006-01-02 15:04"))
		}
		line := fmt.Sprintf(t.Entry, tt.ID, html.EscapeString(systemName(t, &tt)), html.EscapeString(c.Game(tt.Variant)),
			html.EscapeString(c.Control(tt.Control)), len(es), tt.MaxPlayers, html.EscapeString(state))
		if in {
			line += t.Joined
		}
		lines = append(lines, line)
		if tt.State != tournament.Created {
			continue
		}
		lines = append(lines, fmt.Sprintf(t.Deep, tt.ID, html.EscapeString(joinLink(u.Bot, tt.ID))))
		if in {
			kb = append(kb, []bot.Button{{Text: fmt.Sprintf(t.Leave, tt.ID), Data: fmt.Sprintf("%s:l:%d", TournamentPrefix, tt.ID)}})
		} else {
			kb = append(kb, []bot.Button{{Text: fmt.Sprintf(t.Join, tt.ID), Data: fmt.Sprintf("%s:j:%d", TournamentPrefix, tt.ID)}})
		}
	}
	return strings.Join(lines, "\n"), kb, nil
}

// systemName names a tournament's system, with its rounds or duration.
func systemName(t *texts.Tournament, tt *tournament.Tournament) string {
	name := t.Systems[string(tt.System)]
	switch tt.System {
	case tournament.Swiss:
		return fmt.Sprintf("%s %d", name, tt.Rounds)
	case tournament.Arena:
		return fmt.Sprintf("%s %dm", name, int(tt.Duration/time.Minute))
	}
	return name
}

// HandleCallback handles a press of a tournament's button: join or leave, answered with a short
// notice, and the list pressed shown anew.
func (v *Tournaments) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	c := texts.For(u.User.Language)
	t := c.Tournament()
	parts := strings.Split(cq.Data, ":")
	var id int64
	var err error
	if len(parts) == 3 {
		id, err = strconv.ParseInt(parts[2], 10, 64)
	}
	if len(parts) != 3 || err != nil || (parts[1] != "j" && parts[1] != "l") {
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, c.Bot.Stale))
	}
	p := player(u)
	var answer string
	if parts[1] == "j" {
		err = v.tn.Join(ctx, tx, p, id, false)
		answer = t.JoinedOK
		if err == nil {
			answer, err = v.startsAt(ctx, tx, u, id, t.JoinedOK)
		}
	} else {
		err = v.tn.Leave(ctx, tx, p, id)
		answer = t.LeftOK
	}
	if err != nil {
		if words := tournamentError(t, err); words != "" {
			return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, words))
		}
		return err
	}
	reqs := []bot.Request{bot.AnswerCallback(u.Chat, cq.ID, answer)}
	if m := cq.Message; m != nil {
		text, kb, err := v.list(ctx, tx, u)
		if err != nil {
			return err
		}
		edit, err := bot.EditHTML(u.Chat, m.MessageID, text, kb)
		if err != nil {
			return err
		}
		reqs = append(reqs, edit)
	}
	return tx.Send(ctx, reqs...)
}

// startsAt fills a text's start time of a tournament.
func (v *Tournaments) startsAt(ctx context.Context, tx bot.Tx, u *bot.Update, id int64, format string) (string, error) {
	tt, err := v.tn.Store(tx.DB()).Get(ctx, id)
	if err != nil || tt == nil {
		return "", err
	}
	return fmt.Sprintf(format, tt.StartsAt.UTC().Format("2006-01-02 15:04")), nil
}

// HandleStart takes /start with a tournament's join link ("t" and its id): the user joins it, or
// is told why not. It reports whether it took the command.
func (v *Tournaments) HandleStart(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	arg, ok := strings.CutPrefix(strings.TrimSpace(u.Args), "t")
	if !ok {
		return false, nil
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return false, nil
	}
	t := texts.For(u.User.Language).Tournament()
	err = v.tn.Join(ctx, tx, player(u), id, false)
	if err != nil {
		if words := tournamentError(t, err); words != "" {
			return true, say(ctx, tx, u.Chat, html.EscapeString(words), 0)
		}
		return true, err
	}
	text, err := v.startsAt(ctx, tx, u, id, t.JoinedOK)
	if err != nil {
		return true, err
	}
	return true, say(ctx, tx, u.Chat, html.EscapeString(text), 0)
}

// HandleCommand is /tournament: new (create), allow and limit (the creation setting, admins),
// anything else the usage.
func (v *Tournaments) HandleCommand(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	c := texts.For(u.User.Language)
	t := c.Tournament()
	args := strings.Fields(strings.ToLower(u.Args))
	admin := u.User.IsAdmin
	switch {
	case len(args) >= 1 && args[0] == "new":
		spec, ok := parseSpec(args[1:], v.svc.Now())
		if !ok {
			return say(ctx, tx, u.Chat, t.Usage, 0)
		}
		tt, err := v.tn.Create(ctx, tx, player(u), admin, spec)
		if err != nil {
			if words := tournamentError(t, err); words != "" {
				return say(ctx, tx, u.Chat, html.EscapeString(words), 0)
			}
			return err
		}
		text := fmt.Sprintf(t.Created, tt.ID, html.EscapeString(systemName(t, tt)), html.EscapeString(c.Game(tt.Variant)),
			html.EscapeString(c.Control(tt.Control)), tt.StartsAt.UTC().Format("2006-01-02 15:04"),
			html.EscapeString(joinLink(u.Bot, tt.ID)))
		return say(ctx, tx, u.Chat, text, 0)
	case admin && len(args) == 2 && (args[0] == "allow" || args[0] == "limit"):
		st := v.tn.Store(tx.DB())
		set, err := st.Setting(ctx, u.Service)
		if err != nil {
			return err
		}
		switch args[0] {
		case "allow":
			if args[1] != "on" && args[1] != "off" {
				return say(ctx, tx, u.Chat, t.Usage, 0)
			}
			set.UsersMayCreate = args[1] == "on"
		case "limit":
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 0 || n > 100 {
				return say(ctx, tx, u.Chat, t.Usage, 0)
			}
			set.MaxOpen = n
		}
		if err := v.tn.SetSetting(ctx, tx, u.Service, set); err != nil {
			return err
		}
		yes := t.No
		if set.UsersMayCreate {
			yes = t.Yes
		}
		return say(ctx, tx, u.Chat, html.EscapeString(fmt.Sprintf(t.SettingSaved, yes, set.MaxOpen)), 0)
	}
	return say(ctx, tx, u.Chat, t.Usage, 0)
}

// parseSpec reads the arguments of /tournament new (after "new"); false when they do not fit
// the syntax (the service checks the values).
func parseSpec(args []string, now time.Time) (boards.TournamentSpec, bool) {
	var spec boards.TournamentSpec
	if len(args) < 1 {
		return spec, false
	}
	spec.System = tournament.System(args[0])
	args = args[1:]
	number := func() (int, bool) {
		if len(args) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(args[0])
		args = args[1:]
		return n, err == nil && n > 0 && n < 100000
	}
	switch spec.System {
	case tournament.Swiss:
		n, ok := number()
		if !ok {
			return spec, false
		}
		spec.Rounds = n
	case tournament.Arena:
		n, ok := number()
		if !ok {
			return spec, false
		}
		spec.Duration = time.Duration(n) * time.Minute
	case tournament.RoundRobinSystem:
	default:
		return spec, false
	}
	if len(args) < 2 {
		return spec, false
	}
	spec.Variant, spec.Control, args = args[0], args[1], args[2:]
	for len(args) > 0 {
		key := args[0]
		args = args[1:]
		n, ok := number()
		if !ok {
			return spec, false
		}
		switch key {
		case "in":
			spec.StartsAt = now.Add(time.Duration(n) * time.Minute)
		case "max":
			spec.MaxPlayers = n
		default:
			return spec, false
		}
	}
	return spec, true
}

// TournamentChanged shows a change of a tournament to its players (boards.TournamentView): the
// standings messages sent at the start and edited after each pairing and result, the final
// places announced at the end, the call-off told.
func (v *Tournaments) TournamentChanged(ctx context.Context, tx bot.Tx, ch *boards.TournamentChange) error {
	switch ch.Kind {
	case boards.TournamentStarted, boards.TournamentPaired, boards.TournamentResult, boards.TournamentFinished,
		boards.TournamentCancelled:
	default:
		return nil
	}
	tt := ch.Tournament
	for _, e := range ch.Entrants {
		if e.Program {
			continue
		}
		p, err := v.svc.Profile(ctx, tx.DB(), e.User)
		if err != nil {
			return err
		}
		if p == nil || p.Blocked {
			continue
		}
		c := texts.For(p.Lang)
		t := c.Tournament()
		if ch.Kind == boards.TournamentCancelled {
			if err := say(ctx, tx, p.Chat, html.EscapeString(fmt.Sprintf(t.Cancelled, tt.ID)), 0); err != nil {
				return err
			}
			continue
		}
		text, err := v.standings(ctx, tx, c, ch.TournamentTable, e.User)
		if err != nil {
			return err
		}
		if err := v.showStandings(ctx, tx, p.Chat, tt.ID, e, text); err != nil {
			return err
		}
		if ch.Kind == boards.TournamentFinished {
			if row := ch.Row(e.User); row != nil {
				score := row.Score.String()
				if tt.System == tournament.Arena {
					score = strconv.Itoa(row.Points)
				}
				msg := fmt.Sprintf(t.Place, tt.ID, row.Rank, len(ch.Rows), score)
				if err := say(ctx, tx, p.Chat, html.EscapeString(msg), 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// showStandings sends a player's standings message, or edits it in place when it was sent
// recently enough to edit.
func (v *Tournaments) showStandings(ctx context.Context, tx bot.Tx, chat, id int64, e tournament.Entrant, text string) error {
	r := tournamentRef(id)
	now := v.svc.Now()
	if !e.MessageAt.IsZero() && now.Sub(e.MessageAt) <= refreshAfter {
		req, err := bot.EditHTMLRef(chat, r, text, nil)
		if err != nil {
			return err
		}
		req.State = r
		return tx.Send(ctx, req)
	}
	reqs, err := bot.SendHTML(chat, text, nil)
	if err != nil {
		return err
	}
	if err := v.tn.Store(tx.DB()).MarkMessage(ctx, id, e.User, now); err != nil {
		return err
	}
	return tx.Send(ctx, bot.WithState(r, append([]bot.Request{bot.DeleteRef(chat, r)}, bot.WithRef(r, reqs...)...)...)...)
}

// standings is a player's standings message: the tournament, the round (or the arena's time
// left), the leading lines and the player's own, and their current game.
func (v *Tournaments) standings(ctx context.Context, tx bot.Tx, c *texts.Catalog, tab *boards.TournamentTable, user int64) (string, error) {
	t := c.Tournament()
	tt := tab.Tournament
	lines := []string{fmt.Sprintf(t.Standings, tt.ID, html.EscapeString(systemName(t, tt)), html.EscapeString(c.Game(tt.Variant)))}
	switch {
	case tt.State == tournament.Finished:
		lines = append(lines, t.Final)
	case tt.System == tournament.Arena:
		lines = append(lines, html.EscapeString(fmt.Sprintf(t.ArenaLeft, c.Duration(max(tt.EndsAt.Sub(v.svc.Now()), 0)))))
	default:
		lines = append(lines, html.EscapeString(fmt.Sprintf(t.Round, tt.Round, tab.Rounds())))
	}
	for i, row := range tab.Rows {
		if i >= standingsShown && row.User != user {
			continue
		}
		p, err := v.svc.Profile(ctx, tx.DB(), row.User)
		if err != nil {
			return "", err
		}
		name := boards.PlayerName(p, row.User)
		var line string
		if tt.System == tournament.Arena {
			fire := ""
			if row.Fire {
				fire = t.Fire
			}
			line = fmt.Sprintf(t.ArenaRow, row.Rank, html.EscapeString(name), row.Points, fire)
		} else {
			line = fmt.Sprintf(t.Row, row.Rank, html.EscapeString(name), row.Score, row.Buchholz, quarters(row.SonnebornBerger))
		}
		if row.User == user {
			line = "<b>" + line + "</b>" + t.You
		}
		lines = append(lines, line)
	}
	if tt.State == tournament.Running {
		if row := tab.Row(user); row != nil && row.Board != 0 {
			lines = append(lines, fmt.Sprintf(t.Playing, row.Board))
		} else {
			lines = append(lines, t.Waiting)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// quarters writes a count of quarter points: "3¼", "½", "0".
func quarters(n int) string {
	frac := [...]string{"", "¼", "½", "¾"}[n%4]
	if n/4 == 0 && frac != "" {
		return frac
	}
	return strconv.Itoa(n/4) + frac
}

package questplay

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// # Settings: the player's names
//
// Quests call the player by name (<Ranger>, <Player>) and name the planets and stars of the
// ranger's home (<FromPlanet>, <FromStar>) and of the quest's destination (<ToPlanet>, <ToStar>).
// By default the name is the player's Telegram first name and the planets and stars are real
// names in the quest's language (quest.NamedPlayer). /settings (the built-in quest.settings,
// migration 034) shows them, and "/settings <field> <value>" changes one for every game from the
// next screen on:
//
//	/settings name Alex        the name (имя)
//	/settings planet Mars      the home planet (планета), star its star (звезда)
//	/settings toplanet Vega    the destination (планета-цели), tostar its star (звезда-цели)
//	/settings name -           back to the default
//	/settings reset            every field back to its default (сброс)
//
// A value is one line of 1 to 32 printable characters without the brackets of the quests' markup
// and formulas (<>[]{}), which would be read as markup once in a text. A name a developer sets on
// a sandbox game (/set Ranger) goes before the one of the settings, for that game.

// maxNameLen bounds a name of the settings, in characters.
const maxNameLen = 32

// nameField is a field of the settings: its words and where it is kept.
type nameField struct {
	keys []string
	get  func(*questpg.Names) *string
	// label picks the field's label in a language's texts.
	label func(*texts.Quest) string
	// def is the field's default in a player (the quest's language).
	def func(*quest.Player) string
}

var nameFields = []nameField{
	{keys: []string{"name", "ranger", "имя"}, get: func(n *questpg.Names) *string { return &n.Ranger },
		label: func(t *texts.Quest) string { return t.SettingName }},
	{keys: []string{"planet", "fromplanet", "планета"}, get: func(n *questpg.Names) *string { return &n.FromPlanet },
		label: func(t *texts.Quest) string { return t.SettingPlanet }, def: func(p *quest.Player) string { return p.FromPlanet }},
	{keys: []string{"star", "fromstar", "звезда"}, get: func(n *questpg.Names) *string { return &n.FromStar },
		label: func(t *texts.Quest) string { return t.SettingStar }, def: func(p *quest.Player) string { return p.FromStar }},
	{keys: []string{"toplanet", "планета-цели"}, get: func(n *questpg.Names) *string { return &n.ToPlanet },
		label: func(t *texts.Quest) string { return t.SettingToPlanet }, def: func(p *quest.Player) string { return p.ToPlanet }},
	{keys: []string{"tostar", "звезда-цели"}, get: func(n *questpg.Names) *string { return &n.ToStar },
		label: func(t *texts.Quest) string { return t.SettingToStar }, def: func(p *quest.Player) string { return p.ToStar }},
}

// resetKeys reset every field.
var resetKeys = []string{"reset", "сброс"}

// applyNames puts the planets and stars the user set into a player (the name goes in apart, see
// game.ranger).
func applyNames(p *quest.Player, n questpg.Names) {
	for _, v := range []struct {
		to   *string
		from string
	}{{&p.FromPlanet, n.FromPlanet}, {&p.FromStar, n.FromStar}, {&p.ToPlanet, n.ToPlanet}, {&p.ToStar, n.ToStar}} {
		if v.from != "" {
			*v.to = v.from
		}
	}
}

// cleanName is a value of the settings as it is kept; ok is false for a value refused (see
// Settings).
func cleanName(s string) (string, bool) {
	s = strings.Join(strings.Fields(s), " ")
	n := utf8.RuneCountInString(s)
	if n == 0 || n > maxNameLen || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) || strings.ContainsRune("<>[]{}", r) {
			return "", false
		}
	}
	return s, true
}

// settings is the built-in quest.settings: /settings [field value], answered in the user's
// language.
func (g *Games) settings(ctx context.Context, tx bot.Tx, u *bot.Update, arg string) error {
	_, user, chat, err := who(u)
	if err != nil {
		return err
	}
	t := texts.For(u.User.Language)
	db := tx.DB()
	names, err := g.store.PlayerNames(ctx, db, user)
	if err != nil {
		return fmt.Errorf("questplay: settings: %w", err)
	}
	key, value, _ := strings.Cut(strings.TrimSpace(arg), " ")
	key, value = strings.ToLower(key), strings.TrimSpace(value)
	var answer string
	changed := false
	switch f := fieldOf(key); {
	case key == "":
		answer = g.settingsText(t, u, names)
	case isKey(resetKeys, key) && value == "":
		names, changed = questpg.Names{}, true
		answer = t.Quest.SettingsReset + "\n\n" + g.settingsText(t, u, names)
	case f == nil:
		answer = fmt.Sprintf(t.Quest.SettingsUnknown, key) + "\n\n" + t.Quest.SettingsUsage
	case value == "":
		answer = t.Quest.SettingsUsage
	case value == "-":
		*f.get(&names), changed = "", true
		answer = fmt.Sprintf(t.Quest.SettingDefault, f.label(&t.Quest)) + "\n\n" + g.settingsText(t, u, names)
	default:
		v, ok := cleanName(value)
		if !ok {
			answer = fmt.Sprintf(t.Quest.SettingBad, maxNameLen)
			break
		}
		*f.get(&names), changed = v, true
		answer = fmt.Sprintf(t.Quest.SettingSet, f.label(&t.Quest), v) + "\n\n" + g.settingsText(t, u, names)
	}
	if changed {
		if err := g.store.SetPlayerNames(ctx, db, user, names); err != nil {
			return fmt.Errorf("questplay: settings: %w", err)
		}
		// A remembered game holds the names it was read with.
		g.live.forget(u.Service, user)
	}
	return g.apology(ctx, tx, chat, answer)
}

// settingsText shows the names of the settings, each with its default when it has none of its
// own, then how to change them.
func (g *Games) settingsText(t *texts.Catalog, u *bot.Update, n questpg.Names) string {
	def := quest.NamedPlayer(questLang(t.Lang), g.now())
	var b strings.Builder
	b.WriteString(t.Quest.SettingsHead)
	for _, f := range nameFields {
		v := *f.get(&n)
		if v == "" {
			if f.def == nil {
				v = name(u)
			} else {
				v = f.def(&def)
			}
			v += " " + t.Quest.SettingsDefaultMark
		}
		fmt.Fprintf(&b, "\n%s: %s", f.label(&t.Quest), v)
	}
	b.WriteString("\n\n" + t.Quest.SettingsUsage)
	return b.String()
}

func isKey(keys []string, key string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

// fieldOf is the field a word names, nil for none.
func fieldOf(key string) *nameField {
	for i := range nameFields {
		if isKey(nameFields[i].keys, key) {
			return &nameFields[i]
		}
	}
	return nil
}

// settingsBuiltin is the built-in quest.settings of the command tree (argument what).
func (g *Games) settingsBuiltin(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if err := g.settings(ctx, tx, u, args["what"]); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// Package texts is the catalogue of everything the bot says to its users, in each language it
// speaks (English and Russian), and the one place where errors become words (errors.go).
//
// A Catalog holds one language; its fields are grouped by the part of the bot that speaks them.
// Texts are HTML unless their comment says plain. A text with verbs (%s, %d) is a format for
// fmt.Sprintf with the arguments its comment names. English is complete; a Russian text is never
// empty (a test checks both).
package texts

import (
	"fmt"
	"strings"
)

// Catalog is every user-facing text in one language.
type Catalog struct {
	// Lang is the language: "en" or "ru".
	Lang string
	// Bot is what the transport and the router say on their own.
	Bot Bot
	// Tree is what the command tree's handler says beside the tree's own texts.
	Tree Tree
	// Quest is what the quest player says, and Session what it says of multiplayer sessions.
	Quest   Quest
	Session Session
	// Relay is the messages between users and admins, broadcasts and news.
	Relay Relay
	// Dev is the quest developers' tools.
	Dev Dev
	// Board is the board games.
	Board Board
	// Shared is the board games played in a message a whole chat sees (inline mode, groups).
	Shared Shared
	// Ratings is the board games' ratings: /rating's chart and /top's leaderboards.
	Ratings Ratings
	// Web is the web game server's answers.
	Web Web
	// Warnings is what the checker of quests tells their authors.
	Warnings Warnings
}

// languages are the languages the bot speaks, English first (the fallback).
var languages = []string{"en", "ru"}

var catalogs = map[string]*Catalog{
	"en": {Lang: "en", Bot: botEN, Tree: treeEN, Quest: questEN, Session: sessionEN, Relay: relayEN, Dev: devEN, Board: boardEN,
		Shared: sharedEN, Ratings: ratingsEN, Web: webEN, Warnings: warningsEN},
	"ru": {Lang: "ru", Bot: botRU, Tree: treeRU, Quest: questRU, Session: sessionRU, Relay: relayRU, Dev: devRU, Board: boardRU,
		Shared: sharedRU, Ratings: ratingsRU, Web: webRU, Warnings: warningsRU},
}

// Language picks the language the bot speaks to a user from their language code: Russian for ru
// (and its regional variants), English otherwise.
func Language(code string) string {
	code = strings.ToLower(code)
	if code == "ru" || strings.HasPrefix(code, "ru-") {
		return "ru"
	}
	return "en"
}

// For returns the catalogue of the language a language code picks (see Language).
func For(code string) *Catalog { return catalogs[Language(code)] }

// Languages lists the languages the bot speaks, English (the fallback) first.
func Languages() []string { return append([]string(nil), languages...) }

// List joins names as a sentence does: "A", "A and B", "A, B and C" ("…" for none).
func (c *Catalog) List(names []string) string {
	switch len(names) {
	case 0:
		return "…"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + c.Bot.And + names[len(names)-1]
}

// Plural is the forms of a word counted, each a format of the number (%d): One, Few and Many, as
// the language's rule picks them (Catalog.Count). English has two (Few and Many are the same);
// Russian three: 1 игра, 2 игры, 5 игр.
type Plural struct{ One, Few, Many string }

// Count words n with the form of p that c's language asks for it: in English One for 1 and Many
// otherwise; in Russian One for 1, 21, 31… (not 11), Few for 2–4, 22–24… (not 12–14), Many
// for the rest (0, 5–20, 25–30…).
func (c *Catalog) Count(n int, p Plural) string {
	form := p.Many
	abs := max(n, -n)
	switch {
	case c.Lang != "ru":
		if abs == 1 {
			form = p.One
		}
	case abs%10 == 1 && abs%100 != 11:
		form = p.One
	case abs%10 >= 2 && abs%10 <= 4 && (abs%100 < 12 || abs%100 > 14):
		form = p.Few
	}
	return fmt.Sprintf(form, n)
}

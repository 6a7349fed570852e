// Package texts is the catalogue of everything the bot says to its users, in each language it
// speaks (English and Russian), and the one place where errors become words (errors.go).
//
// A Catalog holds one language; its fields are grouped by the part of the bot that speaks them.
// Texts are HTML unless their comment says plain. A text with verbs (%s, %d) is a format for
// fmt.Sprintf with the arguments its comment names. English is complete; a Russian text is never
// empty (a test checks both).
package texts

import "strings"

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
	// Warnings is what the checker of quests tells their authors.
	Warnings Warnings
}

// languages are the languages the bot speaks, English first (the fallback).
var languages = []string{"en", "ru"}

var catalogs = map[string]*Catalog{
	"en": {Lang: "en", Bot: botEN, Tree: treeEN, Quest: questEN, Session: sessionEN, Relay: relayEN, Dev: devEN, Board: boardEN,
		Shared: sharedEN, Ratings: ratingsEN, Warnings: warningsEN},
	"ru": {Lang: "ru", Bot: botRU, Tree: treeRU, Quest: questRU, Session: sessionRU, Relay: relayRU, Dev: devRU, Board: boardRU,
		Shared: sharedRU, Ratings: ratingsRU, Warnings: warningsRU},
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

package telegram

import (
	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// # The game's page inside Telegram
//
// When Telegram can open the web game server's page of a game as a Mini App
// (miniAppURL: an https PUBLIC_URL, or an http loopback address on the built-in emulator), each player's keyboard ends with a row "Open", a web_app button that opens it:
// the page logs the player in with the data Telegram signs for them, so it needs no /web link
// (bot/boards/web, miniapp.go). Telegram allows web_app buttons in private chats only, so a
// board in any other chat has none; nor has the question whether to resign, which waits for
// its answer, nor a game that is over, whose board has no buttons at all.

// withOpen returns kb with the row that opens the game's page as a Mini App, when there is one
// for the seat (see above).
func (v *View) withOpen(c *texts.Catalog, sc *boards.Scene, seat int, kb bot.Keyboard, confirm bool) bot.Keyboard {
	p := sc.Players[seat]
	if confirm || sc.Board.Status != board.Active || p == nil || !privateChat(p.Chat, p.ID) {
		return kb
	}
	u := v.miniAppURL(sc.Board.ID)
	if u == "" {
		return kb
	}
	return append(kb, []bot.Button{{Text: c.Board.Open, WebApp: u}})
}

// miniAppURL returns the address of a game's web page to open inside Telegram as a Mini App (a
// web_app button), or "" when Telegram would not open it: without a web game server, and at an
// address other than https, but for an http loopback address in Telegram's test environment
// (boards.Config.TestEnvironment, the built-in emulator). The page logs its user in with the
// data Telegram signs for it (bot/boards/web, miniapp.go).
func (v *View) miniAppURL(board int64) string {
	u := v.svc.PlayURL(board)
	if u == "" || !bot.MiniAppURL(u, v.svc.TestEnvironment()) {
		return ""
	}
	return u
}

// privateChat reports whether chat is the private chat of user: in Telegram its id is the
// user's, and the ids of groups and channels are negative.
func privateChat(chat, user int64) bool { return chat > 0 && chat == user }

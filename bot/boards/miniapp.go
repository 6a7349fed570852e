package boards

import "github.com/questbot/questbot/bot"

// MiniAppURL returns the address of a game's web page to open inside Telegram as a Mini App (a
// web_app button), or "" when Telegram would not open it: without a web game server, and at an
// address other than https, but for an http loopback address in Telegram's test environment
// (Config.TestEnvironment, the built-in emulator). The page logs its user in with the data
// Telegram signs for it (bot/boards/web, miniapp.go).
func (b *Boards) MiniAppURL(board int64) string {
	u := b.PlayURL(board)
	if u == "" || !bot.MiniAppURL(u, b.testEnv) {
		return ""
	}
	return u
}

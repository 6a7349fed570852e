package telegram

import (
	"html"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
)

// The service's scene speaks plain text (a player's name, why a game ended); the view's
// messages are Telegram HTML, so its values are escaped here, once, where they enter the
// catalogue's texts.

// htmlName is a seat's player as c names them (boards.Scene.Name), escaped for Telegram HTML.
func htmlName(c *texts.Catalog, sc *boards.Scene, seat int) string {
	return html.EscapeString(sc.Name(c, seat))
}

// htmlReason is why a finished game ended (boards.Scene.EndReason), escaped for Telegram HTML.
func htmlReason(c *texts.Catalog, sc *boards.Scene) string {
	return html.EscapeString(sc.EndReason(c))
}

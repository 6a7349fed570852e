package telegram

import (
	"html"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
)

// # A board without its picture
//
// When a board's picture cannot be sent or changed for good (the Bot API server refuses photos,
// as a proxy that takes no upload as big as a picture does, or refuses the edit), the transport
// sends what the request carries for that case (bot.Request.OnFailure) in its place: the board
// as text, the engine's diagram in a fixed-width block under a line saying that the picture
// could not be sent, then the caption, with the seat's keyboard, so the player still sees the
// game and plays it with the buttons. The text board is sent under the board's ref, as the
// picture would have been. Such a message is no picture to edit: while the pictures are
// refused, each change of the board (an edit by ref, or of the message whose button was
// pressed) fails too, and its text board replaces the ref's messages (they are deleted first),
// so the chat keeps one board, as with pictures. A board sent anew (news from the opponent,
// /mygames) tries the picture again.

// textBoard returns what shows a seat's board as text in place of its picture, with caption and
// kb as the picture would have had them, under the board's ref, silently (no notification)
// when silent: send, in place of a picture sent anew (whose request deleted the ref's messages
// before it), and edit, in place of a change of the board's message, which deletes the ref's
// messages first.
func textBoard(c *texts.Catalog, sc *boards.Scene, seat int, caption string, kb bot.Keyboard, silent bool) (send, edit []bot.Request, err error) {
	chat, r := sc.Players[seat].Chat, ref(sc.Board.ID)
	diagram := strings.TrimRight(sc.Game.Diagram(engine.Player(seat)), "\n")
	send, err = bot.SendHTML(chat, c.Board.NoPicture+"\n<pre>"+html.EscapeString(diagram)+"</pre>\n"+caption, kb)
	if err != nil {
		return nil, nil, err
	}
	if silent {
		for i := range send {
			send[i].Params["disable_notification"] = "true"
		}
	}
	send = bot.WithRef(r, send...)
	return send, append([]bot.Request{bot.DeleteRef(chat, r)}, send...), nil
}

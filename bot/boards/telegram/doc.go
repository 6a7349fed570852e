// Package telegram is the board games in Telegram, a view of the board service (bot/boards): it
// shows the service's changes in the players' chats and carries out their commands, presses and
// typed moves through the service's operations. The notification policy (when news rings) is
// the service's; how a board looks, and how a player enters a move, are this package's.
//
// # Commands
//
// The commands are rows of the command tree (migration 015_boards.sql), which call this
// package's built-ins (Builtins): /games chooses a game and then "play the bot" (a level), "find
// an opponent" (a clock: the user joins the oldest game of the same game and clock that waits
// for an opponent, or opens one and waits) or "invite a friend" (a clock: a link
// t.me/<bot>?start=g<code>, single-use, valid for a day); /mygames lists the user's games, those
// where it is their turn first, each a button that brings the board back; /rating sends the
// chart of the user's Glicko-2 ratings over time, captioned with the numbers (before any rated
// game, the table of games played, won, lost and drawn; games against the bot count, unrated),
// and /top [game] the best players of a game (rating.go, migration 028_ratings.sql); /notify (migration
// 019_notify.sql) shows the user's notification setting with buttons to change it: the delay,
// the quiet hours and the UTC offset they are in. The invite link's /start is taken by
// HandleStart before the tree's /start.
//
// /web and /token (AccessBuiltins, access.go; migration 017_web.sql) let users into the web game
// server (bot/boards/web), another view: /web gives a login link (a ticket valid for TicketTTL,
// single use), an admin's /token issues an API token acting as a user of the bot, or revokes one;
// both only in the user's private chat (sent in a group, they give nothing and say to ask there).
// The tickets and tokens are kept by their store, botpg.Credentials. The message that carries a
// link or a token keeps its secret only until it is sent (bot.KeepSecret); Undelivered, a job
// (undelivered.go), uses up the links and revokes the tokens whose message could not be
// delivered, and tells the admin who asked for the token.
//
// # The board
//
// A game is one message in each player's chat: the board's picture (a PNG the engine draws,
// their side at the bottom, the last move highlighted), captioned with the game and the move
// number, the players and their clocks, the last move, whose turn it is and the time left, or
// the result; under it the player's buttons. It is changed in place as the game goes on, and
// sent anew at the bottom of the chat when the player hears of a change now (show.go, changed.go;
// when, is the service's notification policy): Telegram notifies new messages, not edits. The
// pictures are the service's files, named after what they show, so Telegram's file_id is reused
// for a position seen before; they are drawn by the outbox's sender as their requests go
// (boards.PictureToSend, bot.Request.Draw), never in the change that shows them, so a move made
// on the web pays for no picture and a board superseded before it is sent is never drawn. A
// picture the Bot API server refuses for good, or that cannot be drawn, is replaced by the
// board as text, with the same caption and buttons (fallback.go).
//
// A game may also be played in one message a whole chat sees: posted from the bot's inline
// results in any chat, or by /games in a group; that message is its board, for both players
// (inline.go). Those messages are this view's records, kept by its own store
// (bot/boards/telegram/tgstore), which no other view reads, with when each seat's board message
// was last sent in its player's chat (show.go): the web's picture of such a board asks the
// service whether a key opens it (boards.Boards.SharedPictureOpens), which asks this view. When a
// player was last on the web, which the service's notification policy reads, is the service's
// (boards.Scene.Web).
//
// # Layers
//
// The service hands the view its changes in its own transaction (boards.Tx), which is the bot's
// transaction its caller gave (a handler's, the web's through the bot, a job's): the view takes
// the bot's back (botTx) to send to its outbox. The service's scenes are plain text, which the
// view escapes where they enter the catalogue's HTML (words.go). The board itself, and every
// other record of the domain, the view reads and writes through the service, never through the
// domain store's package (make check).
//
// # Entering a move
//
// With the buttons: on the player's turn the keyboard offers the squares of the pieces that can
// move; a tap marks the piece on the picture with the squares it can go to next, which the
// keyboard then offers (for a capture chain, one landing square a tap, the caption listing the
// whole moves still possible), until the squares tapped make one legal move, which is played
// (when several moves end there, a chess promotion, a Chase exchange, they are offered by name,
// engine.StepInfo.Choices). "Back" takes back the last tap. A button's data is
// "g:<board>:<ply>:<op><args>" (data.go): the board, the ply the keyboard was made for, and the
// squares tapped so far, one character each, as indices into the squares offered at each step
// (engine.Game.Steps), so a whole capture chain of International draughts fits Telegram's 64
// bytes and the server keeps no state of a move in progress. A press for another ply than the
// board's (the board has moved on) or of a board the user does not play, and data no button of
// ours carries, are answered with a short notice and change nothing.
//
// Typed, by HandleMessage (notation.go, typed.go): the engine's lenient notation ("e3-f4",
// "c3:e5:g7", "Nf3", "O-O", "e8=Q", "32-28"), Cyrillic file letters read by their sound and
// letters that look like Latin ones as a Russian keyboard types them ("с3-д4"), the Russian
// chess piece letters ("Кf3"), and a lowercase piece letter where no pawn move fits ("bxc5").
// HandleMessage is offered the messages no command or prompt took, before the relay, and takes a
// text when it reads as a move and the user plays a game, and while a game waits for the user's
// move any text that looks like an attempt at one, so a move never goes to the admins. A move
// played is answered at the bottom of the chat with the move, the game and the opponent, and a
// button to its board. A typed move goes to the
// first game, of those where it is the user's turn from the most recent turn on, in which it is
// legal. A refused move is answered with why (the engine's *engine.MoveError: no piece there, not
// the player's, a capture is compulsory, ambiguous, ...) and with the legal moves of the piece
// it names, or the moves it could be, or all the moves when they are few; it changes nothing. A
// move typed while it is the opponent's turn in every game is answered so.
package telegram

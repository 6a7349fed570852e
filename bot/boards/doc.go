// Package boards plays the engine's board games in Telegram: Russian, Turkish, International and
// Brazilian draughts, chess, Chase and Fox and Geese, between two users or against the bot. The
// rules of a session (seats, turns, clocks, undo, draws, results) are package board's
// (sessions/board), stored by boardpg in the update's transaction; the rules of the games are the
// engine's.
// This package turns them into messages and buttons, takes the players' presses and typed moves,
// and runs the scheduled work: the clocks, the reminders, the bot's moves and the clean-up.
//
// # Commands
//
// The commands are rows of the command tree (migration 015_boards.sql), which call this
// package's built-ins (Builtins): /games chooses a game and then "play the bot" (a level), "find
// an opponent" (a clock: the user joins the oldest game of the same game and clock that waits
// for an opponent, or opens one and waits) or "invite a friend" (a clock: a link
// t.me/<bot>?start=g<code>, single-use, valid for a day); /mygames lists the user's games, those
// where it is their turn first, each a button that brings the board back; /rating gives, per
// game, the games played, won, lost and drawn and the Elo rating (games between users are rated,
// from 1500 with K 32; games against the bot count, unrated); /notify (migration
// 019_notify.sql) shows the user's notification setting with buttons to change it: the delay,
// the quiet hours and the UTC offset they are in. The invite link's /start is taken by
// HandleStart before the tree's /start.
//
// # The board
//
// A game is one message in each player's chat: the board's picture (a PNG the engine draws,
// their side at the bottom, the last move highlighted), captioned with the game and the move
// number, the players and their clocks, the last move, whose turn it is and the time left, or
// the result; under it the player's buttons. It is changed in place as the game goes on, and
// sent anew at the bottom of the chat when the player must hear of a change (see show.go and
// notify.go): Telegram notifies new messages, not edits. The pictures are files named after what they show,
// so Telegram's file_id is reused for a position seen before (picture.go). A picture the Bot API
// server refuses for good is replaced by the board as text, with the same caption and buttons
// (fallback.go).
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
// "c3:e5:g7", "Nf3", "O-O", "e8=Q", "32-28"), Cyrillic letters that look like Latin ones as a
// Russian keyboard types them ("с3-d4"), the Russian chess piece letters ("Кf3"), and a
// lowercase piece letter where no pawn move fits ("bxc5"). HandleMessage is offered the
// messages no command or prompt took, before the relay, and takes a text only when it reads as a
// move and the user plays a game, so a move never goes to the admins. A typed move goes to the
// first game, of those where it is the user's turn from the most recent turn on, in which it is
// legal. A refused move is answered with why (the engine's *engine.MoveError: no piece there, not
// the player's, a capture is compulsory, ambiguous, ...) and with the legal moves of the piece
// it names, or the moves it could be, or all the moves when they are few; it changes nothing. A
// move typed while it is the opponent's turn in every game is answered so.
//
// # Authority
//
// Every move, a player's or the bot's, goes through one path (play): the board is locked in the
// transaction that stores the move, the board rules check the turn, the ply the player saw
// and the clock, and the engine checks the move; the move, the new position and the messages
// commit together. The bot thinks outside any transaction (ai.go) and its move is played by the
// same path only if the board has not changed meanwhile. Everything is in the database, so a
// restart continues every game, a pending bot move included.
//
// # Between players
//
// The opponent's board changes when a move is made, and the opponent is notified (notify.go):
// the board is sent anew at the bottom of their chat, with a sound, at once or after the delay
// they chose with /notify (at once, 15 minutes, an hour, never; by default at once without a
// clock or with a clock of minutes, 15 minutes for correspondence), held back by their quiet
// hours; meanwhile the board is changed in place, silently. A pending notification is one row
// per board and seat (a newer move replaces it), sent by the Notify job through the outbox,
// once, even across a restart or with two processes; it is dropped when the player has seen the
// move meanwhile (pressed a button of the board, typed a move, brought it back with /mygames, or
// opened the game on the web), when it is no longer news (taken back), or when they blocked the
// bot. The notification tells who played what in which game, with the board's buttons to answer
// and a link to the game's web page. A draw offer, the start and the end of a game are notified
// alike.
//
// A move may be taken back until the opponent has seen it; against the bot always, with the
// bot's reply. A player may resign (confirmed), offer a draw once a move (the opponent accepts
// or declines it, or declines it by moving; the bot answers at once). Clocks (none;
// correspondence, a day or three days a move; Fischer, 10 minutes and 5 seconds a move) are run
// by the server: the Deadlines job ends a game whose player to move ran out of time, and the
// Reminders job warns a correspondence player two hours before the deadline, and a player with
// a clock of minutes when a fifth of their main time (at least a minute) is left and they have
// not touched the board at this ply (jobs.go, notify.go).
//
// # Metrics
//
// Games started and finished per game, moves by game and by whom (their rate is the moves per
// second), the AI's think time, the time to draw a picture, and the notifications sent and
// dropped (Metrics).
package boards

// Package boards is the board-game service: the engine's games (Russian, Turkish, International
// and Brazilian draughts, chess, Chase and Fox and Geese) between two users or against the bot.
// The rules of a session (seats, turns, clocks, undo, draws, results) are sessions/board's,
// stored by sessions/board/boardpg in the caller's transaction; the rules of the games are the
// engine's. This package keeps the rules of play and their persistence, the jobs of the clocks,
// reminders, notifications and clean-up, the AI's worker pool and the notification policy.
//
// Its operations (ops.go: Open, Redeem, Join, and on a board a player holds, Take: Act for a
// move, an undo, a resignation or a draw, each checked first by InPlay against the ply the
// player decided on, the one rule of every view; Seen, SeenUpTo, Cancel, SetSpectators) exist once,
// whoever asks, and return what happened: a Change (the events of package board, who did it,
// how each seat hears of it), which the service hands to its views (View) in the transaction
// that makes it, and writes into the board's numbered record of events. The views render it: the
// Telegram view (bot/boards/telegram: the boards as pictures in the players' chats, the
// commands, buttons and typed moves), and the web game server (bot/boards/web: the JSON API, the
// pages, the live updates), which reads the boards and follows the record.
//
// # Layering
//
// The service is below its views and knows no medium. It runs in its own transaction, Tx (the
// database and the work after the commit), which the transport's transactions are: the views
// pass theirs, and the jobs get theirs from the transport's Do through DoerOf. It speaks plain
// data: a player is a Profile (Config.Users gives them: bot/boards/botusers reads the bot's
// users), a Scene's names and end reasons are plain text, and the markup is each view's, made
// from bot/texts (escaped HTML in Telegram, plain text on the web). It imports neither the
// transport's root package (bot) nor the transport's stores, which do. The game is kept by the
// domain store, sessions/board/boardpg, which the views reach through the service only
// (Boards.Store, Revisions, Spectators); a view's own records are its own store's (the Telegram
// view's: when each seat's board message was last sent and the shared messages,
// bot/boards/telegram/tgstore). What the service's own policies read stays in the domain store,
// when each seat's player was last on the web (Scene.Web, which the notifications read) among
// them; what the service must learn of a view's records it asks the view through a function the
// view gives it (SetSharedInvites), never by the view's tables. make check enforces both rules.
//
// # Authority
//
// Every move, a player's or the bot's, goes through one path (commit): the board is locked in
// the transaction that stores the move, the rules of sessions/board check the turn, the ply the
// player saw and the clock, and the engine checks the move; the move, the new position and what
// the views queue commit together. The bot thinks outside any transaction (ai.go) and its move is played by the
// same path only if the board has not changed meanwhile. Everything is in the database, so a
// restart continues every game, a pending bot move included.
//
// # Between players
//
// News of a game (the opponent moved, offered a draw or joined, or the game ended behind the
// player's back) reaches the player at once, after the delay they chose with /notify, held back
// by their quiet hours, or never, and is dropped once they have seen it: the policy, and how a
// pending notification is told once across restarts and processes, are notify.go's.
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
// # Ratings
//
// The ratings are sessions/board's Glicko-2, moved with each rated game's result by the store;
// the service gives its views the leaderboards (Leaderboard, programs marked) and the chart of a
// player's ratings over time (RatingChart, drawn by the engine and kept with the pictures): see
// ratings.go.
//
// # Tournaments
//
// Tournaments (tournament.go: round robin, Swiss, arena) are series of ordinary boards: each
// pairing opens a board between its players in the transaction that pairs it, and the one path
// of changes records a finished board's result and pairs what follows at once; the Tournaments
// job starts them at their time and is the fallback of the rest.
//
// What happened in a tournament is made once too, by the service (tell, the one place every
// change of a tournament passes: a player joined or left, the start, a round paired, a game's
// result, the end, the call-off), stored once, in the transaction of the change, as the
// tournament's numbered record (tournament_events.go: the table tournament_event of
// sessions/tournament/tournamentpg, migration 042), and rendered by each view: the Telegram view
// (the standings messages) from the TournamentChange it is handed in the transaction, the web's
// tournament page from the record, which its stream sends with the events' numbers, resumable
// with Last-Event-ID as a board's.
//
// # Events: made, stored, rendered
//
// What happened on a board is made once, by the operation (the events of package board in a
// Change), stored once, in the transaction of the change, as the board's numbered record
// (events.go: the table board_event of sessions/board/boardpg, migration 037; a board's events
// stay with it as its game record), and rendered by each view: the Telegram view from the Change
// it is handed in the transaction, the web view from the record, which its event stream sends
// with the events' numbers (a reconnection with Last-Event-ID reads what it missed from the
// record, across a restart too), and nothing else: every change a page shows is an event of the
// record. A seat's mark of what it has seen moving on (its opponent's undo button going with it),
// a switch of spectators and, on a finished board, its rematch offered or answered are recorded
// too. A move's or an undo's event carries the position as the web shows it (the legal moves of
// the player to move, who may take a move back, the picture's version), so that a page draws the
// opponent's move from it alone; the web's state of a board takes what a seat has not seen and
// the answer to its draw offer from the record (NewsOf).
//
// # Listening
//
// Each process listens on one connection: the Feed (feed.go), a Listener (listen.go: a
// connection of its own named by its application_name, with TCP keep-alive, connected again
// after a loss with a pause that doubles from 50 ms to 5 s). It reads the records' new events of
// the boards and the tournaments somebody follows, once per announcement, and hands them to its
// subscribers (bounded: a slow one is told it lost events and reads them from the record itself);
// after every (re)connection it reads, one by one, the events numbered above the last it handed
// out. The other channels of the service and its views (the bots' turns, FollowAI; the web's
// revoked grants) are handled on the same connection.
//
// # Metrics
//
// Games started and finished per game, moves by game and by whom (their rate is the moves per
// second), the AI's think time, the time to draw a picture and the pictures drawn by where (as
// their Telegram requests are sent, for the web's picture addresses, inside another web
// request: none should be, see picture.go), and the notifications sent and dropped (Metrics).
package boards

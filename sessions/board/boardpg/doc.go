// Package boardpg keeps the boards of package board (sessions/board) in PostgreSQL.
//
// Store implements board.Store and board.Jobs on the tables of migration 012_board_games.sql:
// board_session (one row per board: status, ply, whose turn, the deadline, the draw offer, the
// outcome), board_seat (the two seats: user or bot, clock, last ply seen), board_move (one row per
// ply, with the position after it, so that a replay can be checked), board_invite (single-use
// invite codes, stored as SHA-256 hashes), board_stats (per bot, user and variant: games, results
// and the Glicko-2 rating, migration 028_ratings.sql), board_rating_history (a player's rating after
// each rated game), board_time_control (the catalogue of clocks) and board_event (the numbered
// record of what happened on each board, migration 037_board_event_record.sql: events.go). It
// works inside the caller's
// transaction (New(tx)): a move made in Telegram is stored with the messages it sends, or not at
// all.
//
// Concurrency: Lock reads a board with SELECT … FOR UPDATE, so operations on one board are
// serialised by its row lock. Save is optimistic as well: it writes only if the stored board
// still has the revision and ply it was read with (every save moves the revision on), so a
// board read twice and saved twice, or saved from a stale read, fails with board.ErrStale
// instead of losing a move. Matchmaking and the scheduled jobs claim rows with FOR UPDATE SKIP
// LOCKED: two joiners never take one seat, and two processes never settle one board twice.
// The AI worker's claim is a lease on the bot's turn at a revision, because the move is
// computed outside any transaction.
//
// Results: the save that finishes a game records it in both players' statistics, and for a
// rated game (two users) moves both Glicko-2 ratings and writes a row of each player's history,
// in the same transaction (Ratings reads them: the history, the leaderboards); the statistics rows
// are locked in user order, so two games of the same players ending at once do not deadlock.
//
// Users are rows of the users table and bots of service; this package never writes to them.
//
// Beside the game, it keeps what the service keeps of a board for its views (board.Views,
// views.go): when each seat's player was last on the web (board_web_presence, migration 041),
// the pending notifications, the users' notification settings, the clock reminders sent and
// whether spectators may watch. A view's records of its own are its store's, not this
// package's: the Telegram view's board messages and shared messages are
// bot/boards/telegram/tgstore's.
package boardpg

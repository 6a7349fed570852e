// Package board holds the pure rules of Questbot's board-game sessions: seats, turns, moves
// through engine, undo, draws, clocks, results and ratings. It knows no database, no Telegram
// and no clock of its own: time is passed in (now), and deadlines are data. It imports the
// standard library, engine and sessions (for the kinds of its refusals) only; boardpg stores
// its boards in PostgreSQL.
//
// A Board is one game of the engine's (Russian, Turkish, International or Brazilian draughts,
// Chase, Fox and Geese, chess) between two seats: users, or a user and the bot at a level
// (easy, normal, strong). Its life: Open (the creator waits, or plays the bot at once),
// Join (the second player fills the seat and the clocks start), Move, Undo, Seen, Resign,
// OfferDraw, AcceptDraw, DeclineDraw and, for the scheduled jobs, Expire and Remind. Every
// operation checks its preconditions and returns a sentinel error (ErrNotYourTurn, ErrStale,
// ErrCannotUndo, ...) having changed nothing, or changes the board and returns events
// (EventMoved, EventFinished, ...) for the bot to turn into messages. The caller stores the
// changed board (Store.Save) in the transaction that locked it, with those messages.
//
// The server is the authority: a move is parsed and applied by engine (a refused move is a
// *MoveError, matching both ErrIllegalMove and the engine's own error), the canonical move
// text and the position after it are stored, and the ply the player saw must be the board's,
// so a stale or forged move changes nothing. Rebuild replays the move list through engine and
// checks every stored position (ErrCorrupt when one differs); the operations use the replayed
// game, which also keeps the engine's history-based draw rules (repetition) exact, and Game
// lends it to the caller for legal moves, keyboards, pictures and the AI. A replay costs about
// 20 µs a ply for chess (BenchmarkRebuild).
//
// # Clocks
//
// TimeControl describes the clock (none, correspondence, Fischer, byo-yomi, sandglass; Controls
// is the catalogue of standard ones). Clocks run in real time from the start of a turn, whether
// or not the player looks. The deadline of the side to move is stored; a move after it is not
// played: the game ends on time instead, and the scheduled job ends the games whose deadline
// passed (Expire). Every operation of a player does the same first when the clock has run out.
// A timeout loses, except when the opponent could not have won (in chess, a bare king): then
// the game is drawn. The bot never loses on time: no clock runs on its turn.
// A game that ends during a turn (resignation, agreement, timeout) charges that turn's thinking
// to the side to move, without the increment, so a finished board shows the time that was left.
//
// # Undo and draws
//
// A player may take back their last move while the opponent has not seen it (Seen records what
// a seat has seen; the mover has seen their own move); against the bot always, with the bot's
// reply. The clocks go back to before the move, but the player's turn resumes from when it
// began. A draw offer stands until the opponent accepts or declines it, or moves (which
// declines it); a seat offers at most once a move. The bot answers an offer at once, accepting
// when a short node-bounded search finds it behind, or level after the first 40 plies.
//
// # Results and ratings
//
// A finished game has an Outcome: a winner seat or a draw, and an End (the rules, with the
// engine's reason; resignation; timeout; agreement). Games between two users (people, or
// programs playing with an API token) are rated: the store updates both players' statistics and
// Glicko-2 ratings (glicko.go: RateGame, each game its own rating period, τ 0.5, provisional
// while RD > 110) and writes a row of each player's rating history, in the transaction that
// saves the result. Games against the built-in bot count in the statistics but not in the
// ratings.
//
// # Concurrency
//
// A Board is a value owned by one goroutine. Concurrent operations on one game are serialised
// by the store: Lock reads a board with SELECT … FOR UPDATE inside the caller's transaction,
// and Save refuses (ErrStale) to overwrite a board that changed since it was read. The AI
// worker computes outside any transaction and plays only if the board's revision is still the
// one it claimed.
package board

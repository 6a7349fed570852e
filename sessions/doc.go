// Package sessions holds the pure rules of Questbot's sessions: the multiplayer sessions of
// quests and the board games. It knows no database, no Telegram and no clock of its own: time is
// passed in (now), and deadlines are data. It imports the standard library and engine only;
// sessionpg stores its sessions in PostgreSQL.
//
// # Quest sessions
//
// A quest plays its players against each other when its catalogue row names a session Type: the
// minimum and maximum number of players, the parameter that receives the player's number (the
// index parameter), and the player's outgoing block (Count parameters from Start). The language
// versions of a quest (one common name) share their sessions, so Russian and English players
// meet. A QuestSession is the data of one session; its methods are the rules, pure: the time is
// passed in and a deadline is a field. QuestSessions (quest_run.go) runs them against a
// QuestStore inside the caller's transaction.
//
// "!session [T]": a player joins the oldest open session of the quest that has room, or opens one
// whose joining ends T after it opened (DefaultJoinTimeout without T), and waits, parked at the
// jump, until it starts: at once when it reaches its maximum, else at the deadline if it has its
// minimum. When it starts, every player's number (1, 2, … in joining order) is written into the
// index parameter and the jump is taken. When the deadline passes with fewer than the minimum,
// its players play against the bot: the index parameter becomes 0, and they are told why.
// Sandbox games (a developer's private run) join only sessions of sandbox games.
//
// "!wait [T]" is a round barrier. The player's block is posted for the session's current round;
// when every player has posted, every block is copied into every player's per-player slots
// (player k's value i into parameter Start + Count·k + i, 1-based) and everybody takes the jump,
// each game reseeded with the same random seed (QuestOutcome.Seed) so that the random choices the
// quest makes on the exchanged values agree in every player's game. Otherwise the player waits.
// The round's clock starts with its first block: the others then have T (DefaultRoundTimeout
// without T) to post theirs.
//
// Falling back to the bot, whatever the cause: when a round cannot complete because a player
// missed its deadline or left (their game ended, was cancelled or replaced), the session ends.
// The players waiting at the barrier are told why and take the jump with the index parameter and
// every per-player slot 0 ("no session and no moves"), which the quests answer with their own play
// against the bot. A player of the ended session who had not reached the barrier gets the same
// when they do; a !wait outside any session gets the same values at once, silently.
//
// # Board games
//
// A Board is one game of the engine's (Russian, Turkish, International or Brazilian draughts,
// Chase, Fox and Geese, chess) between two seats: users, or a user and the bot at a level
// (easy, normal, strong). Its life: OpenBoard (the creator waits, or plays the bot at once),
// Join (the second player fills the seat and the clocks start), Move, Undo, Seen, Resign,
// OfferDraw, AcceptDraw, DeclineDraw and, for the scheduled jobs, Expire and Remind. Every
// operation checks its preconditions and returns a sentinel error (ErrNotYourTurn, ErrStale,
// ErrCannotUndo, ...) having changed nothing, or changes the board and returns events
// (EventMoved, EventFinished, ...) for the bot to turn into messages. The caller stores the
// changed board (BoardStore.Save) in the transaction that locked it, with those messages.
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
// engine's reason; resignation; timeout; agreement). Games between two users are rated: the
// store updates both players' statistics and Elo ratings (EloStart 1500, EloK 32; Rate) in the
// transaction that saves the result. Games against the bot count in the statistics but not in
// the ratings.
//
// # Concurrency
//
// A Board is a value owned by one goroutine. Concurrent operations on one game are serialised
// by the store: Lock reads a board with SELECT … FOR UPDATE inside the caller's transaction,
// and Save refuses (ErrStale) to overwrite a board that changed since it was read. The AI
// worker computes outside any transaction and plays only if the board's revision is still the
// one it claimed.
package sessions

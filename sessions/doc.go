// Package sessions holds the pure rules of Questbot's multiplayer quest sessions, and the kinds
// of refusals (ErrKind, Refusal, KindOf) that sessions of every sort give. It knows no database,
// no Telegram and no clock of its own: time is passed in (now), and deadlines are data. It
// imports the standard library and engine only; sessionpg stores its sessions in PostgreSQL.
// The board games' sessions are package sessions/board, stored by sessions/board/boardpg.
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
package sessions

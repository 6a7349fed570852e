// Package multiplayer lets players of a quest play each other: the sessions of the special
// jumps "!session [T]" and "!wait [T]" (T in milliseconds), their round barrier, and the timers
// that bound both. The quest player (bot/questplay) meets these jumps and asks this package what
// to do; everything is kept in the database (migration 010_multiplayer.sql), in the transaction
// of the update that caused it, so a restart loses neither a waiting player nor a posted block.
//
// # Session types and sessions
//
// A quest plays in sessions when its script row names a session_type: the minimum and maximum
// number of players, the parameter that receives the player's number (the index parameter), and
// the player's outgoing block (param_count parameters from start_param). The language versions
// of a quest (one common_name) share their sessions, so Russian and English players meet.
//
// # !session [T]
//
// A player whose screen offers a jump whose text starts with "!session" joins the oldest open
// session of the quest in the bot that has room, or opens a new one whose joining ends T after
// it opened (DefaultJoinTimeout without T). The player then waits, parked at the jump, until the
// session starts: at once when it reaches its maximum, else at the deadline if it has its
// minimum. When it starts, every player's number (1, 2, … in joining order) is written into the
// index parameter and the jump is taken. When the deadline passes with fewer than the minimum,
// its players play against the bot: the index parameter becomes 0, as the quests expect, and
// they are told so.
//
// Sandbox games (a developer's private run, whose parameters /set changes at will) join only
// sessions of sandbox games, so they never play against a counted game.
//
// Joining is serialised per quest (a transaction-scoped advisory lock on the bot, the type and
// the quest), so players joining at the same instant fill one session rather than opening one
// each, and the session row's CHECK (players <= max_players) makes an overfull session
// impossible whatever the code does.
//
// # !wait [T]
//
// A jump whose text starts with "!wait" is a round barrier. The player's outgoing block is posted
// for the session's current round; when every player has posted, all blocks are copied into
// every player's per-player slots (player k's value i into parameter start_param +
// param_count·k + i, 1-based; so in the reference's layout p3 is player 1's move and p4 player
// 2's) and everybody takes the jump. Otherwise the player waits, and sees for whom.
//
// With the blocks, every player's game gets the same new random seed (Outcome.Seed, from the
// session and the round): a quest that picks the round's result at random among jumps of
// different priorities, as spock.qmm does, then picks the same in every player's game, where
// each game's own generator would make the players' games disagree about who won the round.
//
// The round's clock starts with its first block: the others then have T (DefaultRoundTimeout
// without T) to post theirs. While nobody has posted, nobody waits, and there is no deadline.
//
// # Falling back to the bot
//
// The rule, the same whatever the cause: when a round cannot complete because a player missed
// its deadline (the job finds it) or left the game (their game ended, was cancelled or
// replaced), the session ends. The players waiting at the barrier are told why and take the
// jump with the index parameter and every per-player slot set to 0: "no session and no moves",
// which the quests answer with their own play against the bot (spock.qmm's jump from location
// 8 to 6, where the opponent's move becomes a random 1..5). A player of the ended session who
// had not reached the barrier gets the same when they do, with their own notice; a player who
// never reaches it again (their game ends first) is not bothered. A !wait outside any session
// (a game that played the bot from the start) gets the same values at once, silently.
//
// Player names: <1>, <2>, … in quest texts stand for the session's players (Names); outside a
// session, and once it has ended, <1> is the player and the others are the bot.
//
// # Timers
//
// Deadlines are timestamps in the session rows, never timers in memory. Run is a loop that every
// interval (a second by default) looks for sessions whose deadline has passed or one of whose
// players' games has gone, locks each (FOR UPDATE SKIP LOCKED, so two processes never handle one
// session twice) and settles it in a transaction of its own, resuming the parked players through
// the quest player (Resumer) and writing their messages to the transport's outbox in the same
// transaction. After a restart the first pass settles whatever fell due meanwhile.
package multiplayer

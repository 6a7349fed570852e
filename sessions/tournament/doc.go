// Package tournament holds the pure rules of tournaments, apart from storage, clocks and
// transport: who plays whom in each round, with which colour, and how the players stand. It
// imports the standard library only; the board service stores tournaments and turns each
// pairing into an ordinary board.
//
// Three systems are played:
//
//   - Round robin (RoundRobin): everyone meets everyone once, by the Berger tables of the
//     circle method, for up to MaxRoundRobin players. With an odd number of players one sits
//     out each round, which scores nothing (System.ByeScore).
//   - Swiss (PairSwiss): a fixed number of rounds; each round pairs players of equal or near
//     score, never two who have met (unless no pairing of the round avoids it, which only
//     happens when the rounds outnumber the players), and gives each player the colour that
//     balances their colours. Ties are broken by Buchholz and Sonneborn–Berger.
//   - Arena (PairArena, ArenaPoints): for a set duration, players who finish a game are paired
//     again at once with others who are free, nearest in points first, never with the one they
//     just played while a game still running will free somebody else; a win is worth 2, a draw
//     1, and a player on a streak (the two games before were wins) scores double.
//
// Scores are kept in half points (Score), so that sums and comparisons are exact.
package tournament

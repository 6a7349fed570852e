// Package engine is the shared rules engine of Questbot's board games:
// Russian, Turkish, International and Brazilian draughts (and English
// draughts as a test configuration), Chase, Fox and Geese (13, 15 or 17
// geese) and chess. It is a pure library: no database, network,
// goroutines or mutable global state; every call is synchronous and
// deterministic. The bot and session layers drive it, never the reverse.
//
// # Using it
//
// NewGame starts a game by variant name (see Variants) with options such as
// WithPosition, WithSeed, WithPlyLimit and the game-specific ones. A Game
// offers the sorted legal moves (one per distinct effect, each with a
// unique notation that ParseMove reads back), Play for leniently written
// moves ("c3-d4", "c3d4", "g5:e3:c5", "g5xc5", "e2e4", "Nf3", "O-O",
// "A3>A4:2"), Apply, Undo, Status (ongoing, win or draw with a reason),
// Position strings in each game's own format, Steps for inline keyboards
// (which squares may be tapped next), a text Diagram, a PNG Image, Perft and
// Divide, and BestMove, the AI.
//
// # How rules are described
//
// The design follows the Dagaz model (itself a re-implementation of
// Zillions of Games):
//
//   - A topology built from data: named squares, named directions and a
//     neighbour table (rectangles with or without light squares, the hex
//     cylinder of Chase with its left-right wrap and ricochet table, the
//     33-point cross of Fox and Geese). Each player has a direction
//     permutation, so rules are written once in the first player's frame
//     ("forward" is north) and mirrored for the second.
//   - Zones (the promotion ranks) and piece kinds with values.
//   - Move rules: small Go functions over a move context that walks the
//     piece in hand, records captures and either completes the move or
//     continues a compound move with the rules of a given mode. A whole
//     capture chain, a castling or a Chase bump chain is one atomic move.
//   - Priority groups of modes: generation stops at the first group that
//     yields moves, which is how captures become mandatory.
//   - Capture semantics: captured pieces are removed at the end of the move
//     (blocking the way and not capturable twice) or at once (the Turkish
//     strike); promotion happens on arrival, at the end of the move, or on
//     arrival ending the move.
//   - Whole-list filters: the majority rule, the Russian king's landing
//     rule, the fox's longest capture, chess legality. Moves with the same
//     effect (a ring capture taken either way round) are merged.
//
// A move's effect is stored as square assignments plus game variables, and
// positions carry an incremental Zobrist hash, so applying a move is a few
// stores and one XOR, without allocation. Positions are plain values:
// history and undo are copies, repetition is a hash comparison.
//
// # Rule choices
//
// Each game's file documents its rules. Choices worth knowing: in Turkish
// draughts a man that reaches the last rank during a capture goes on
// capturing as a man and is crowned when the move ends; in Chase the
// victim's lost pips go to its lowest dice first, ties in board order, Red
// moves first unless WithFirstPlayer says otherwise, and a side without a
// legal move loses; in Fox and Geese the fox wins when fewer than 6, 7 or 8
// geese remain (13, 15, 17 geese), configurable. Every game is drawn by
// threefold repetition and by a ply limit (DefaultPlyLimit); draughts also
// by 25 king-only moves each without a capture, chess by the fifty-move
// rule and insufficient material.
//
// # AI
//
// BestMove runs alpha-beta (iterative deepening, transposition table,
// killer and history ordering, quiescence over captures) or Monte-Carlo
// tree search, whichever played better in self-play for the game; so far
// alpha-beta won the matches in every game, Chase and Fox and Geese
// included, so it is the default and MCTS is available on request.
// Searches are bounded by nodes or time, cancellable through a context,
// deterministic for a given seed when bounded by nodes only, and always
// return a legal move.
//
// # Tests
//
// The default tests (20 to 40 seconds under -race on two shared cores) run
// every perft table of the reference to a moderate depth: chess start
// position to 4, Kiwipete to 3, position 3 to 5, Russian to 8,
// International to 6, Brazilian to 7, Turkish to 5, English to 7, Chase
// to 3. They also check every known-answer position, play 144 short random
// games checking hashes, position strings, notation and undo after every
// move, and exercise the AI. go test ./engine -deep runs the full tables
// (chess start position to 6, Kiwipete to 4, position 3 to 6, Russian to
// 10, International to 8, Brazilian to 8, Turkish to 7, English to 10,
// Chase to 4) and 3,000 full-length random games; the whole -deep run
// takes about a minute without -race. "go test ./engine -run SelfPlay
// -selfplay 6 -v" replays the matches that chose the default AI; the
// benchmarks report perft and search speed, per wall-clock and per CPU
// second ("go test ./engine -run XXX -bench . -benchtime 3x").
package engine

// Package engine is the shared rules engine of Questbot's board games:
// Russian, Turkish, International, Brazilian, Canadian, Pool, Czech,
// Spanish, Italian, Thai, Armenian and Frisian draughts (and English draughts as a
// test configuration), Chase, Fox and Geese (13, 15 or 17 geese), chess,
// Chess960, Gardner's minichess, Othello, Breakthrough and Atari Go. It is a pure library: no database, network,
// goroutines or mutable global state; every call is synchronous and
// deterministic. The bot and session layers drive it, never the reverse.
//
// # Using it
//
// NewGame starts a game by variant name with options such as
// WithPosition, WithSeed, WithPlyLimit and the game-specific ones. A Game
// offers the sorted legal moves (one per distinct effect, each with a
// unique notation that ParseMove reads back), Play for leniently written
// moves, Apply, Undo, Status (ongoing, win or draw, with the Rule that
// ended the game and an English reason), Position strings in each game's
// own format, Steps for inline keyboards, a text Diagram, pictures
// (WritePNG, WriteRenderPNG), and BestMove, the AI.
//
// Typed moves: each game's notation ("c3-d4", "g5:e3:c5", "32-28",
// "28x19", "e2e4", "e7e8q", "A3>A4:2", "C5-E5(ne)"), and also "c3d4",
// "c3xe5" (a capture by its origin and destination), a single square
// when one legal move ends there ("d4"), chess in standard algebraic
// notation ("Nf3", "exd5", "e8=Q", "O-O", "0-0", "bxc5" with a lowercase
// piece letter where no pawn move fits), Cyrillic file letters read by
// their sound (а б ц/с д е ф г х: "с3-д4" is c3-d4; "в" is not b) and
// the Cyrillic letters that look like the Latin letters of the game's
// notation, and a capture chain along any legal route over the same
// pieces, abbreviated, or by its ends and the squares it names in any
// order (ambiguous when that names several moves). Display and Record
// write moves for people: chess in standard algebraic notation with
// check and mate marks ("Nf3", "exd5", "O-O", "e8=Q+", "Qxf7#"), the
// other games in their own notation. A refused move is a *MoveError whose Kind says why
// (unreadable, no piece, not yours, illegal, ambiguous, game over), with
// the legal moves of the piece named or the candidates of an ambiguous
// text; it wraps ErrIllegalMove, ErrAmbiguousMove or ErrGameOver.
//
// Button entry: Steps(nil) lists the squares of the pieces that can
// move; Steps with the tapped squares lists the next squares (for a
// capture chain, one landing square per press), the legal moves still
// possible (Remaining), labelled Choices when several moves share the
// tapped path (a chess promotion, Chase's die move and exchanges), and
// Back for a "back" button. Apply allocates nothing once a game's buffers
// have grown, in every game.
//
// Pictures: WriteRenderPNG(w, ImageOptions) draws the position for a phone: at least
// 640 pixels wide, turned to the viewer, with coordinates (square numbers
// on numbered boards), figures drawn as vector silhouettes (the six chess
// pieces, draughts men with a crown on kings, Chase dice with pips, the
// fox and the geese), the last move (its squares, its path and the pieces
// it took) from the game's history, who is to move (or the result) and
// the last move's notation in a bar above the board, and the squares of
// button entry (ImageOptions.Selected and Targets). The pieces are
// painted once per process, on first use, into read-only sprites; a
// picture then takes 1.5 to 4 ms on two busy cores. WritePNG and
// WriteRenderPNG draw into a recycled picture, reduce it to a 256-colour
// palette and compress it at the fastest level: 2.5 to 6 ms in all for a
// 15 to 30 KB file (a full-colour PNG alone takes 20 ms to compress).
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
// A game can be written as a description (describe.go): a struct literal
// of the board, the pieces and their patterns (step, slide, jump, flying
// jump, replacement capture), the capture preferences (the majority rule
// and its refinements), promotion and the ends of the game, compiled into
// the rules above. The draughts of draughts_family.go and Breakthrough
// are descriptions; the described forms of Russian, International,
// Brazilian, English and Turkish draughts are checked against the
// hand-written ones, and every described draughts against a reference
// generator of the tests. Othello and Atari Go place stones and have
// generators of their own; a side without a placement passes with the
// move "pass", a point off the board drawn as a button under it.
//
// Chess and the draughts built by draughts() also have a bitboard
// generator (rules.fast) that gives the same moves in the same order as
// the move rules, several times faster; the move rules remain the
// reference (generateRef), and the tests compare the two on random games.
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
// capturing as a man and is crowned when the move ends, a king against a
// single man plays on, and one king against one king is a draw (both
// disputed rules, sources in turkish.go); in Chase the victim's lost pips
// go to its lowest dice first, ties in board order, Red moves first
// unless WithFirstPlayer says otherwise, and a side without a legal move
// loses; in Fox and Geese the fox wins when fewer than 6, 7 or 8 geese
// remain (13, 15, 17 geese), configurable.
//
// # Draws
//
// Every game is drawn by threefold repetition (the same position with the
// same side to move) and by the platform's ply limit (DefaultPlyLimit).
// Besides:
//   - Russian draughts, by the rules of the Russian Draughts Federation
//     (the Rules of the sport "Draughts" of the Russian Ministry of Sport,
//     kinds of draw): three kings or more that have not taken a lone king
//     by their 15th move (RuleThreeKings); an unchanged balance of forces,
//     both sides having kings, for 30 moves with 4 or 5 pieces or 60 moves
//     with 6 or 7 (RuleBalance); 15 moves each with only kings moving and
//     no capture (RuleKingMoves).
//   - International and Brazilian draughts, by the Official FMJD Rules for
//     International Draughts, article 6: 25 moves each with only kings
//     moving and no capture (6.3, RuleKingMoves); three pieces with a king
//     against a lone king, 16 moves each (6.4, RuleSixteenMoves); two
//     pieces with a king, or a king, against a lone king, 5 moves each
//     (6.5, RuleFiveMoves).
//   - Turkish draughts: one king against one king (RuleLoneKings); 25
//     moves each with only kings moving, the platform's counter.
//   - Frisian draughts, by the rules of the Dambûn Frysk Spul: one king
//     against one king at once, unless the side to move can take the
//     other king or must give its own away (RuleLoneKings); two kings
//     against one king, 7 moves each (RuleSevenMoves).
//   - Chess, by the FIDE Laws of Chess: stalemate, the fifty-move rule
//     (RuleFiftyMoves) and dead positions recognised by their material:
//     kings only, a single knight or bishop, bishops all on squares of one
//     colour (RuleDeadPosition).
//
// All of them are automatic: Status declares the draw as soon as the rule
// applies, threefold repetition and fifty moves included, where the FIDE
// Laws let a player claim them (and only fivefold repetition and 75
// moves are automatic). A game here runs on the server with no arbiter: a
// claim would need its own dialogue and timing, and a player away from
// the chat could never make it, so an abandoned or hopeless position
// would drag on to the ply limit. Deciding automatically is what online
// servers commonly do, makes every ending a pure function of the moves
// (a replayed game ends the same way), and matches the draughts rule
// books, whose draw rules are stated as facts ("the game is a draw"), not
// claims. Draw offers and resignation belong to the session layer.
//
// # AI
//
// BestMove runs alpha-beta (iterative deepening, transposition table,
// killer and history ordering, quiescence over captures; for chess also a
// selective search, see search_chess.go, its refinements on request
// (Limits.Refine, search_refine.go, with the static exchange evaluation of
// chess_see.go), a tapered evaluation, chess_eval.go, and a cache of its
// scores, search_evalcache.go) or Monte-Carlo
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
// to 3; and the tables of the new games (games_test.go: Othello to 7 of
// the published 9 plies, the others from 3 to 6). They also check every
// known-answer position and the rule positions of each new game, play
// short random games of every game checking hashes, position strings,
// notation and undo after every move, compare the described draughts with
// the hand-written ones and with the reference generator
// (describe_test.go), and exercise the AI, against random play too.
// go test ./engine -deep runs the full tables (chess start position to 6,
// Kiwipete to 4, position 3 to 6, Russian to 10, International to 8,
// Brazilian to 8, Turkish to 7, English to 10, Chase to 4, Othello to 9,
// the described draughts to their published depths, the published
// Chess960 positions to 5) and thousands of
// full-length random games; the whole -deep run takes a few minutes
// without -race. "go test ./engine -run SelfPlay
// -selfplay 6 -v" replays the matches that chose the default AI; the
// benchmarks report perft and search speed, per wall-clock and per CPU
// second ("go test ./engine -run XXX -bench . -benchtime 3x"), the public
// Apply of every game (no allocation), and drawing and WritePNG per game;
// "go test ./engine -run Pictures -pictures DIR" writes the test pictures
// into DIR to look at.
//
// Each game's move generator is checked against a second opinion: a
// published perft table to depth 5 or more, or a second generator written
// for the tests from the rules alone (it reads the engine's positions and
// moves, and shares none of its generator's code), compared position by
// position over at least 200 seeded random games in the default run
// (more with -deep):
//
//	chess            published perft (start, Kiwipete, position 3: to 6, 4, 6)
//	Chess960         published perft of Scharnagl's positions, to 5
//	Othello          published perft (OEIS A124004), to 9 plies
//	Gardner          second generator, TestGardnerAgreesWithReference
//	Breakthrough     second generator, TestBreakthroughAgreesWithReference
//	Atari Go         second generator, TestAtariGoAgreesWithReference
//	Fox and Geese    second generator, TestFoxGeeseAgreesWithReference
//	Chase            second generator, TestChaseAgreesWithReference
//	draughts         published perft and a second generator: see below
//
// The published tables run to depth 5 in the default run for chess
// (position 3) and to 7 for Othello; Chess960 runs to 3 or 4 there, and
// to 5 with -deep. The second generators compare the legal moves by
// their effect: the squares of the move with the pieces taken (Gardner,
// Breakthrough, Atari Go, which also compares the positions after the
// captures and the moves played), or the position each move leads to
// (Fox and Geese, in 200 games of each setup and 20 with each option;
// Chase, whose perft table above is only provisional, by the die moved,
// the cell it stops on and the position after the move).
//
// Second opinions on the draughts variants. Russian, International,
// Brazilian and English draughts rest on published perft tables run to
// depth 6 to 8 by default (perft_test.go); pool, Czech, Spanish,
// Italian, Canadian and Frisian draughts have published tables too
// (draughts_published_test.go: R. Halbersma's tables from the FMJD and
// Shashki forums, run to depth 5 or 6 by default and 7 to 9 with -deep,
// and for Thai rules one from the twelve-men start). Every variant,
// Turkish, Armenian and Thai included (they have no published table from
// their own start), is also played against a second generator written
// from each variant's rules in the external test package
// (draughts_rulebook_test.go, which sees only the exported API and so
// shares no code): 200 random games a variant by default (40 for the four
// with deep tables), 1000 with -deep, compared position by position: the
// moves by origin, route, pieces taken and arriving piece, and the
// positions they lead to. The Italian federation's capture diagrams are
// tests of their own. A rule both kinds of check confirm: pool and Czech
// kings, like Russian ones, must land where they can capture again (the
// published tables differ from depth 9 without it).
package engine

// Package quest plays Space Rangers text quests exactly as the reference web player does
// (space-rangers-quest, src/lib/qmplayer/funcs.ts: initGame, performJump, getUIState), down to
// the order of its random draws, so that a game gives the same texts, choices and parameter
// values step for step.
//
// # Use
//
// [Compile] turns a decoded quest (package qmm) into a [Quest]: formulas are parsed and texts
// prepared once, and the result is immutable and safe to share between goroutines and games.
// The player itself is pure: no I/O, no clock, no global random source.
//
//	q, err := quest.Compile(decoded)
//	s, err := q.Start(seed)                 // the task screen
//	v, err := q.View(s, player)             // text, parameters, choices
//	s, err = q.Perform(s, v.Choices[i].JumpID)
//
// A [State] is plain data: it serialises to compact JSON and restores exactly (its PRNG state
// included), so a caller can store it between actions. [Quest.Perform] never modifies the state
// it is given. A game can also be rebuilt from its seed and its actions with Quest.replay.
// The [Player] carries the values of the player tags (<Ranger>, <ToPlanet>, …), the language of
// the built-in texts and the clock (Now, with its time zone) used for <Date> and <CurDate>;
// [DefaultPlayer] gives the reference's Russian and English players (golden traces replay with
// them), and [NamedPlayer] players with real names in both languages, for games shown to people.
//
// # Options
//
// [Quest.PerformWith], [Quest.ViewWith] and [Quest.ReplayWith] take [Options] for quests written
// for the original Telegram bot (DagazBotV3), whose interpreter differs from the reference: one
// rule of play (TopPriority, the only option that changes a game) and what is shown of the
// locations an action walks through (DescribedText, and the Passed observer, which reports each
// location passed without a screen of its own). The zero Options are the reference player.
//
// # Differences from the reference
//
// The rules are the reference's, quirks included (see the project's QUEST-SEMANTICS.md, §2.7
// and §3). Where this package deliberately differs, it is stricter:
//
//   - Perform accepts only an action that is an active choice of the current view, and refuses
//     anything else with [ErrNotAChoice] (the reference accepts some actions it never offers).
//   - Errors are returned, never thrown: a formula that does not parse or fails to evaluate
//     gives a [*FormulaError] from the action or view that needs it (a quest with a broken
//     formula stays playable until the formula is used, as in the reference); a state that
//     does not fit the quest gives [ErrBadState].
//   - Automatic jumps are followed in a loop, not by recursion, so chains of any length run
//     (the reference runs out of stack on long ones); an endless chain stops after
//     maxAutoJumps with [ErrAutoJumpLimit] instead of hanging.
//   - The state keeps only the counters the rules read: uses of jumps that have a count limit,
//     visits of locations that have a visit limit or cycle through several texts.
package quest

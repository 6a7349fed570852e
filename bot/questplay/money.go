package questplay

// # The money rule
//
// A player has credits (user_stats.credits, 10 000 to begin with, never below 0 nor above
// MaxCredits). A quest with a money parameter plays with part of them:
//
//   - At launch the stake is min(credits, limit), where limit is the value the quest starts its
//     money parameter at. The stake is taken from the credits and becomes the money parameter's
//     value; game.stake records it.
//   - When the game ends (win, fail or death) the money parameter's final value is paid back to
//     the credits; then a win adds the quest's win_bonus, a death takes its death_penalty.
//   - A game given up (cancelled, replaced by another launch) pays back the money parameter's
//     current value, so a game abandoned neither loses nor creates money beyond what the quest
//     itself gave or took.
//
// Example: credits 10 000, limit 2 000: the game starts with 2 000 and the credits are 8 000;
// the game ends won with 3 500: the credits are 11 500, plus a win bonus of 500: 12 000.
//
// This is the reference's stake rule (end credits = credits − limit + final money when credits
// exceed the limit, else the final money) with its defects fixed: the stake is taken at launch
// rather than recomputed from the credits at the end; a game is settled exactly once, in the
// transaction that ends it and deletes the game row, so neither /retry nor a stale button can
// pay a win bonus twice or apply a change again; an abandoned game is settled too; the penalty
// cannot make the credits negative. A sandbox game moves no credits and counts nothing.

// MaxCredits bounds a player's credits.
const MaxCredits = 1_000_000

// maxCreditsSQL is MaxCredits in the SQL text (a test checks that they agree).
const maxCreditsSQL = "1000000"

// stakeFor is the stake of a launch: the credits put into the quest's money parameter.
func stakeFor(credits int64, c *compiled) int64 {
	if c.money < 0 {
		return 0
	}
	return max(0, min(credits, c.moneyLimit))
}

package tournament

import "time"

// State is where a tournament is in its life.
type State string

// The states: players join and leave a created tournament until it starts; a running one is
// paired and played; a finished one has its final standings (or was called off).
const (
	Created  State = "created"
	Running  State = "running"
	Finished State = "finished"
)

// Tournament is a tournament as it is stored: what it plays, its system and its life. The board
// service (bot/boards) runs it; sessions/tournament/tournamentpg stores it.
type Tournament struct {
	ID      int64
	Service int
	// Variant is the engine variant played, Control the name of the time control of its games.
	Variant string
	Control string
	System  System
	// Rounds is the number of rounds of a Swiss (a round robin's follow from its players);
	// Duration how long an arena is played.
	Rounds     int
	Duration   time.Duration
	MaxPlayers int
	StartsAt   time.Time
	// EndsAt is when an arena stops pairing (zero before it starts, and for the other systems).
	EndsAt time.Time
	State  State
	// Cancelled is set on a tournament finished without games: too few players came.
	Cancelled bool
	// Round is the last round paired (an arena counts its waves of pairings).
	Round    int
	Creator  int64
	Created  time.Time
	Finished time.Time
}

// Entrant is a player entered in a tournament.
type Entrant struct {
	User   int64
	Joined time.Time
	// Rating is the rating the player was seeded by, read when the tournament starts.
	Rating float64
	// Program is set for a program that joined through the web API with its token.
	Program bool
	// FreeSince is, in a running arena, when the player became free for a game (zero: playing).
	FreeSince time.Time
	// MessageAt is when the player's standings message was last sent (zero: never).
	MessageAt time.Time
}

// Player returns the entrant as the pairing rules see it.
func (e Entrant) Player() Player { return Player{ID: e.User, Rating: e.Rating} }

// Pairing is a game of a tournament as stored: the game, its board (0 for a bye), and when it
// finished.
type Pairing struct {
	ID int64
	Game
	Board    int64
	Finished time.Time
}

// Setting is who may create tournaments in a bot besides its admins: users only when
// UsersMayCreate, each with at most MaxOpen tournaments created or running at once.
type Setting struct {
	UsersMayCreate bool
	MaxOpen        int
}

// DefaultSetting is a bot's setting until an admin changes it: only admins create tournaments;
// once users are allowed to, each may have one open at a time.
var DefaultSetting = Setting{UsersMayCreate: false, MaxOpen: 1}

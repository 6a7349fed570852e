package questpg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// # The player's names
//
// A player may give the player tags of the quests' texts names of their own (player_names): a
// name for <Ranger> and <Player>, planets and stars for <FromPlanet>, <FromStar>, <ToPlanet> and
// <ToStar>. "" is the default (the player's Telegram name, the real names of the quest's
// language; bot/questplay decides them). A running game reads the names with its row, so a change
// shows from the next screen on.

// Names are the names a player gave the player tags, "" for each left at its default.
type Names struct {
	Ranger, FromPlanet, FromStar, ToPlanet, ToStar string
}

// PlayerNames returns the names a user gave the player tags (all "" when none).
func (s *Store) PlayerNames(ctx context.Context, db pgx.Tx, user int64) (Names, error) {
	var n Names
	err := db.QueryRow(ctx, `
		SELECT COALESCE(ranger, ''), COALESCE(from_planet, ''), COALESCE(from_star, ''), COALESCE(to_planet, ''),
			COALESCE(to_star, '')
		FROM player_names WHERE user_id = $1`, user).Scan(&n.Ranger, &n.FromPlanet, &n.FromStar, &n.ToPlanet, &n.ToStar)
	if errors.Is(err, pgx.ErrNoRows) {
		return Names{}, nil
	}
	if err != nil {
		return n, fmt.Errorf("player names of user %d: %w", user, err)
	}
	return n, nil
}

// SetPlayerNames stores the names a user gives the player tags ("" for a default); all "" forgets
// them.
func (s *Store) SetPlayerNames(ctx context.Context, db pgx.Tx, user int64, n Names) error {
	var err error
	if n == (Names{}) {
		_, err = db.Exec(ctx, `DELETE FROM player_names WHERE user_id = $1`, user)
	} else {
		_, err = db.Exec(ctx, `
			INSERT INTO player_names (user_id, ranger, from_planet, from_star, to_planet, to_star)
			VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), NULLIF($4, ''), NULLIF($5, ''), NULLIF($6, ''))
			ON CONFLICT (user_id) DO UPDATE SET ranger = EXCLUDED.ranger, from_planet = EXCLUDED.from_planet,
				from_star = EXCLUDED.from_star, to_planet = EXCLUDED.to_planet, to_star = EXCLUDED.to_star,
				updated_at = now()`, user, n.Ranger, n.FromPlanet, n.FromStar, n.ToPlanet, n.ToStar)
	}
	if err != nil {
		return fmt.Errorf("set player names of user %d: %w", user, err)
	}
	return nil
}

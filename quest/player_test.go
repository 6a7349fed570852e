package quest_test

import (
	"testing"
	"time"

	"github.com/questbot/questbot/quest"
)

// Ensure the player shown to people has real names in English, where the reference's English
// player has the tags' own names, and is the reference's player in Russian; the reference's
// players (trace replay) stay as they are.
func TestNamedPlayer(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	en := quest.NamedPlayer(quest.English, now)
	for _, v := range []string{en.FromPlanet, en.FromStar, en.ToPlanet, en.ToStar, en.Ranger, en.Player} {
		switch v {
		case "", "FromPlanet", "FromStar", "ToPlanet", "ToStar", "Ranger", "Player":
			t.Errorf("the English player's names %+v hold the placeholder %q", en, v)
		}
	}
	if en.Lang != quest.English || en.Money != "10000" || !en.Now.Equal(now) {
		t.Errorf("English player %+v", en)
	}
	if ru := quest.NamedPlayer(quest.Russian, now); ru != quest.DefaultPlayer(quest.Russian, now) {
		t.Errorf("Russian player %+v, want the reference's", ru)
	}
	if ref := quest.DefaultPlayer(quest.English, now); ref.ToPlanet != "ToPlanet" || ref.Ranger != "Ranger" {
		t.Errorf("the reference's English player changed: %+v", ref)
	}
}

package quest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// ownQuests are the quests the project ships, which test the player without the shared corpus.
var ownQuests = []string{"cargo-run_en.qmm", "cargo-run_ru.qmm", "duel_en.qmm", "duel_ru.qmm"}

// Ensure the player plays the project's own quests: seeded random playouts from the start take
// only active choices until the game ends (or a step limit), every state survives JSON and the
// game goes on from the restored state, Perform leaves the state it is given alone, and
// replaying the choices from the seed gives the same state and screen. Every quest is played to
// an end at least once.
func TestOwnQuests(t *testing.T) {
	t.Parallel()
	for _, name := range ownQuests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("..", "uploads", name))
			if err != nil {
				t.Fatal(err)
			}
			d, err := qmm.DecodeBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			q, err := quest.Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			p := quest.DefaultPlayer(quest.English, testNow)
			ended := 0
			for game := range 40 {
				seed := fmt.Sprintf("own-%d", game)
				rnd := rand.New(rand.NewPCG(uint64(game), 7))
				s, err := q.Start(seed)
				if err != nil {
					t.Fatal(err)
				}
				var actions []int
				var v quest.View
				for step := 0; step < 300; step++ {
					if v, err = q.View(s, p); err != nil {
						t.Fatalf("game %d step %d: %v", game, step, err)
					}
					raw, err := json.Marshal(s)
					if err != nil {
						t.Fatal(err)
					}
					var back quest.State
					if err := json.Unmarshal(raw, &back); err != nil {
						t.Fatal(err)
					}
					if again, _ := json.Marshal(back); string(again) != string(raw) {
						t.Fatalf("game %d step %d: the state does not survive JSON:\n%s\n%s", game, step, raw, again)
					}
					s = back // the game goes on from the restored state
					if v.Status.Over() {
						ended++
						break
					}
					var active []int
					for _, c := range v.Choices {
						if c.Active {
							active = append(active, c.JumpID)
						}
					}
					if len(active) == 0 {
						t.Fatalf("game %d step %d: a running game offers no active choice: %+v", game, step, v)
					}
					jump := active[rnd.IntN(len(active))]
					before := s.Clone()
					next, err := q.Perform(s, jump)
					if err != nil {
						t.Fatalf("game %d step %d: perform %d: %v", game, step, jump, err)
					}
					if !reflect.DeepEqual(before, s) {
						t.Fatalf("game %d step %d: Perform changed the state it was given", game, step)
					}
					actions = append(actions, jump)
					s = next
				}
				again, err := q.Replay(seed, actions)
				if err != nil {
					t.Fatalf("game %d: replay: %v", game, err)
				}
				if a, b := jsonOf(t, again), jsonOf(t, s); a != b {
					t.Fatalf("game %d: the replay ends in another state:\n%s\n%s", game, a, b)
				}
				if w, err := q.View(again, p); err != nil || !reflect.DeepEqual(w, v) {
					t.Fatalf("game %d: the replay shows another screen (%v)", game, err)
				}
			}
			if ended == 0 {
				t.Error("no playout reached an end")
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

package telegram

import (
	"errors"
	"testing"
)

// Ensure the data of a group member's choices reads back as written, and that data no button
// carries (a game not offered, no clock, no user, too many or too few parts) is refused as forged.
func TestParseSharedChoices(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]sharedPress{
		"G:o:chess:42":        {kind: 'o', variant: "chess", user: 42},
		"G:c:chess:corr3d:42": {kind: 'c', variant: "chess", control: "corr3d", user: 42},
		"G:c:chase:none:7":    {kind: 'c', variant: "chase", control: "none", user: 7},
	} {
		got, err := parseShared(data)
		if err != nil || got.kind != want.kind || got.variant != want.variant || got.control != want.control || got.user != want.user {
			t.Errorf("parseShared(%q) = %+v, %v; want %+v", data, got, err, want)
		}
	}
	for _, data := range []string{"G:c:nogame:none:42", "G:c:chess::42", "G:c:chess:none:x", "G:c:chess:none", "G:c:chess:none:42:1",
		"G:o:nogame:42"} {
		if _, err := parseShared(data); !errors.Is(err, errForged) {
			t.Errorf("parseShared(%q) = %v, want forged", data, err)
		}
	}
}

package botpg

import (
	"errors"
	"strings"
	"testing"
)

// Ensure a sealed token opens with its key for its row only, and keys are read in hex and base64.
func TestSealedToken(t *testing.T) {
	t.Parallel()
	key, err := ParseTokenKey(" " + strings.Repeat("a1", 32) + "\n")
	if err != nil {
		t.Fatal(err)
	}
	other, err := ParseTokenKey("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	if err != nil {
		t.Fatal(err)
	}
	sealed := key.seal(3, "123:secret")
	if strings.Contains(string(sealed), "secret") {
		t.Fatal("the sealed token shows the token")
	}
	if got, err := key.open(3, sealed); err != nil || got != "123:secret" {
		t.Fatalf("open: %q, %v", got, err)
	}
	if _, err := key.open(4, sealed); !errors.Is(err, ErrSealed) {
		t.Errorf("opened for another row: %v", err)
	}
	if _, err := other.open(3, sealed); !errors.Is(err, ErrSealed) {
		t.Errorf("opened with another key: %v", err)
	}
	if _, err := key.open(3, sealed[:5]); !errors.Is(err, ErrSealed) {
		t.Errorf("opened a cut token: %v", err)
	}
	if a, b := key.seal(3, "x"), key.seal(3, "x"); string(a) == string(b) {
		t.Error("two seals of one token are alike")
	}
	for _, bad := range []string{"", "00", strings.Repeat("zz", 32), strings.Repeat("a1", 31)} {
		if _, err := ParseTokenKey(bad); !errors.Is(err, ErrTokenKey) {
			t.Errorf("ParseTokenKey(%q): %v", bad, err)
		}
	}
}

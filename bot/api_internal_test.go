package bot

import (
	"strings"
	"testing"
)

// Ensure the excerpt of an answer is one short line without the token, not even a piece of it
// cut off at the end of what was read.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	const token = "123:SECRET"
	long := strings.Repeat("x", 300)
	for _, c := range []struct{ name, in, want string }{
		{"Empty", "", "(empty body)"},
		{"Spaces", "<h1>502\n\n  Bad\tGateway</h1>\r\n", "<h1>502 Bad Gateway</h1>"},
		{"Token", "GET /bot123:SECRET/sendMessage", "GET /bot<token>/sendMessage"},
		{"TokenCut", "upstream /bot123:SEC", "upstream /bot"},
		{"Long", long, strings.Repeat("x", maxExcerpt) + "…"},
		{"NotUTF8", "a\xffb", "a\uFFFDb"},
		{"Control", "a\x00\x01b", "a b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := excerpt([]byte(c.in), token); got != c.want {
				t.Errorf("excerpt(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

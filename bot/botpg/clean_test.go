package botpg

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Ensure cleanJSON replaces exactly what PostgreSQL cannot hold, one character for one, and
// leaves everything else as it is.
func TestCleanJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
		changed        bool
	}{
		{"Plain", `{"text":"hello, мир 🌍"}`, `{"text":"hello, мир 🌍"}`, false},
		{"Nul", `{"text":"a\u0000b"}`, `{"text":"a\ufffdb"}`, true},
		{"NulUpper", `{"text":"\U0000"}`, `{"text":"\U0000"}`, false}, // not an escape: the decoder rejects it
		{"EscapedBackslash", `{"text":"a\\u0000b"}`, `{"text":"a\\u0000b"}`, false},
		{"Pair", `{"text":"\ud83c\udf0d"}`, `{"text":"\ud83c\udf0d"}`, false},
		{"LoneHigh", `{"text":"x\ud83cy"}`, `{"text":"x\ufffdy"}`, true},
		{"HighThenHigh", `{"text":"\ud83c\ud83c\udf0d"}`, `{"text":"\ufffd\ud83c\udf0d"}`, true},
		{"LoneLow", `{"text":"\udf0d"}`, `{"text":"\ufffd"}`, true},
		{"HighAtEnd", `{"text":"\ud83c`, `{"text":"\ufffd`, true},
		{"BadUTF8", "{\"text\":\"a\xffb\xc3\"}", "{\"text\":\"a\uFFFDb\uFFFD\"}", true},
		{"KeyNul", `{"a\u0000":1}`, `{"a\ufffd":1}`, true},
		{"OtherEscapes", `{"t":"\n\t\"\u00e9\u0041"}`, `{"t":"\n\t\"\u00e9\u0041"}`, false},
		{"ShortEscape", `{"t":"\u00"}`, `{"t":"\u00"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := cleanJSON([]byte(c.in))
			if string(got) != c.want || changed != c.changed {
				t.Errorf("cleanJSON(%q) = %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
			}
		})
	}
}

// FuzzCleanJSON checks that cleaning keeps JSON valid and changes what it decodes to only where
// PostgreSQL could not hold it: a U+0000 becomes U+FFFD (Go's decoder already reads unpaired
// surrogates and bytes that are not UTF-8 as U+FFFD).
func FuzzCleanJSON(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"text":"a\u0000b"}`, `["\ud800","\udc00\ud800\udc00"]`,
		"{\"x\":\"\xff\xfe\"}", `{"a\\u0000":"\\"}`, `[1,2.5e3,null,true]`, "\"\\\xdb0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := cleanJSON(in)
		if !utf8.Valid(out) {
			t.Fatalf("cleanJSON(%q) = %q: not UTF-8", in, out)
		}
		var before, after any
		if json.Unmarshal(in, &before) != nil {
			return
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("cleanJSON(%q) = %q: no longer JSON: %v", in, out, err)
		}
		want, ok := withoutNul(before)
		if !ok {
			return // two keys that differ only by U+0000 and U+FFFD: the decoder keeps either
		}
		if !reflect.DeepEqual(after, want) {
			t.Fatalf("cleanJSON(%q) = %q decodes to %#v, want %#v", in, out, after, want)
		}
	})
}

// withoutNul returns v, decoded JSON, with every U+0000 of its strings and keys made U+FFFD; false
// when two keys of an object become one.
func withoutNul(v any) (any, bool) {
	fix := func(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }
	switch v := v.(type) {
	case string:
		return fix(v), true
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			var ok bool
			if out[i], ok = withoutNul(x); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			y, ok := withoutNul(x)
			if _, dup := out[fix(k)]; dup || !ok {
				return nil, false
			}
			out[fix(k)] = y
		}
		return out, true
	}
	return v, true
}

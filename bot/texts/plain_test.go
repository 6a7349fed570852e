package texts

import (
	"reflect"
	"regexp"
	"testing"
)

// Ensure Plain takes the markup out of a text of the catalogue and reads its entities, and that
// the catalogue's texts use no markup Plain does not know but links (a link is no plain text:
// the plain views do not show those texts).
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"🏁 <b>%s wins</b>: %s.":            "🏁 %s wins: %s.",
		"Your place: <b>%d</b>.":           "Your place: %d.",
		"<code>a &lt;b&gt; &amp; c</code>": "a <b> & c",
		"no markup":                        "no markup",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
	markup := regexp.MustCompile(`<[a-z/][^>]*>|&[a-z#0-9]+;`)
	link := regexp.MustCompile(`^(<a href="[^"]*">|</a>)$`)
	for _, lang := range languages {
		var each func(path string, v reflect.Value)
		each = func(path string, v reflect.Value) {
			switch v.Kind() {
			case reflect.Struct:
				for i := range v.NumField() {
					each(path+"."+v.Type().Field(i).Name, v.Field(i))
				}
			case reflect.Map:
				for _, k := range v.MapKeys() {
					each(path+"["+k.String()+"]", v.MapIndex(k))
				}
			case reflect.Slice, reflect.Array:
				for i := range v.Len() {
					each(path, v.Index(i))
				}
			case reflect.String:
				for _, m := range markup.FindAllString(Plain(v.String()), -1) {
					if !link.MatchString(m) {
						t.Errorf("%s%s keeps %q after Plain", lang, path, m)
					}
				}
			}
		}
		each("", reflect.ValueOf(*catalogs[lang]))
	}
}

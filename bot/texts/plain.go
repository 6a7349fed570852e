package texts

import "strings"

// Plain is a text of the catalogue without its Telegram markup, for a view that shows plain
// text (the web game server): the catalogue's texts are Telegram HTML, marked up with <b>, <i>,
// <u>, <s>, <code> and <pre> and escaping &, < and > as entities. Plain takes a text of the catalogue, a format
// before its values are put in: the values are the caller's, plain text for a plain view, and
// are never read as markup.
func Plain(s string) string { return plainMarkup.Replace(s) }

var plainMarkup = strings.NewReplacer("<b>", "", "</b>", "", "<i>", "", "</i>", "", "<u>", "", "</u>", "",
	"<s>", "", "</s>", "", "<code>", "", "</code>", "", "<pre>", "", "</pre>", "",
	"&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&")

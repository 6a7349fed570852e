package texts

// Web is what the web game server's API says in its answers that a page shows as they are: the
// refusals a visitor not logged in meets (a Mini App page whose login was refused among them).
// All plain.
type Web struct {
	// NotFound answers a game that does not exist or that the caller may not see.
	NotFound string
	// NoTournament answers a tournament that does not exist.
	NoTournament string
	// NoCall answers an address of the API that is no call.
	NoCall string
	// LogIn answers a call that needs a login, made without one.
	LogIn string
	// BadLogin answers a session cookie or an API token that opens nothing.
	BadLogin string
	// RateLimited answers a caller over the rate limit.
	RateLimited string
	// Page is the words of the web pages' scripts (the lobby, a game, the leaderboards, a
	// tournament), by the key a script names them with ("lobby.title", "err.stale"...). The
	// server puts both languages in every page it serves and a script picks the viewer's, so
	// that the pages speak with the bot's catalogue and keep no copy of their own. Plain text;
	// a "{name}" in a text is replaced by the script.
	Page map[string]string
}

var webEN = Web{
	NotFound:     "No such game, or it is not open to you.",
	NoTournament: "No such tournament.",
	NoCall:       "No such call.",
	LogIn:        "Log in with a link from /web in the bot.",
	BadLogin:     "The session or token is not valid; log in with a link from /web in the bot.",
	RateLimited:  "Too many requests; slow down.",
	Page:         pageEN,
}

var webRU = Web{
	NotFound:     "Такой партии нет, или она вам не открыта.",
	NoTournament: "Такого турнира нет.",
	NoCall:       "Такого вызова нет.",
	LogIn:        "Войдите по ссылке, которую присылает бот на команду /web.",
	BadLogin:     "Сессия или токен недействительны; войдите по ссылке, которую присылает бот на команду /web.",
	RateLimited:  "Слишком много запросов; помедленнее.",
	Page:         pageRU,
}

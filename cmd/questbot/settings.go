package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
)

// # Checks of the settings at start
//
// A setting that cannot work is refused before anything starts, in one line that names it,
// with exit status 2: ConfigFromEnv checks each variable, and runServe the --role against them.
// A token is never shown in the line, not even the part that was read.

// checkBotTokens checks BOT_TOKEN: empty (the emulator), or bot tokens separated by commas (with
// spaces around them or not), each the bot's id in digits, a colon and the secret of letters,
// digits, "_" and "-", as Telegram makes them. An empty entry is refused rather than skipped: it
// is a token lost in the writing.
func checkBotTokens(s string) error {
	if s == "" {
		return nil
	}
	entries := strings.Split(s, ",")
	for i, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			return fmt.Errorf("BOT_TOKEN: entry %d of %d is empty: separate the tokens with single commas", i+1, len(entries))
		}
		if err := checkBotToken(e); err != nil {
			return fmt.Errorf("BOT_TOKEN: token %d of %d is malformed: %w; a token is the bot's id, a colon, "+
				`then letters, digits, "_" and "-", as @BotFather gives it`, i+1, len(entries), err)
		}
	}
	return nil
}

// checkBotToken checks one token's form and says what is wrong without showing any of it: the
// position of a character no token holds, and that character (which is therefore no part of a
// real token's secret).
func checkBotToken(t string) error {
	id, secret, ok := strings.Cut(t, ":")
	if !ok {
		return errors.New("it has no colon")
	}
	if id == "" || strings.Trim(id, "0123456789") != "" {
		return errors.New("the bot's id before the colon is not a number")
	}
	if secret == "" {
		return errors.New("nothing follows the colon")
	}
	for i, r := range t {
		if i <= len(id) || r == '_' || r == '-' || r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			continue
		}
		return fmt.Errorf("character %d is %s", utf8.RuneCountInString(t[:i])+1, describeRune(r))
	}
	return nil
}

// describeRune names a character for a message: the blanks by name, others quoted.
func describeRune(r rune) string {
	switch r {
	case ' ':
		return "a space"
	case '\t':
		return "a tab"
	case '\n', '\r':
		return "a line break"
	case ':':
		return "a second colon"
	}
	return strconv.QuoteRune(r)
}

// checkHTTPAddr checks HTTP_ADDR: host:port, the host empty (every address), an IP address (with
// its zone, for a link-local IPv6 address) or a name, the port a number from 0 (any free port) to 65535. A port name (":http") is refused with
// the rest: the value is written for this program, and a number says what it means.
func checkHTTPAddr(s string) error {
	malformed := fmt.Errorf("HTTP_ADDR is malformed: it must be host:port with a port from 0 to 65535, such as 127.0.0.1:8080, not %q", s)
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return malformed
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || strings.Trim(port, "0123456789") != "" {
		return malformed
	}
	if _, err := netip.ParseAddr(host); host == "" || err == nil {
		return nil
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return malformed
		}
		for _, r := range label {
			if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return malformed
			}
		}
	}
	return nil
}

// checkRole refuses a role that cannot work with the configuration: a poller or a worker needs
// BOT_TOKEN, since without it every process starts a Bot API emulator of its own, and the updates
// one process's emulator receives would wait for a worker that never sees them (or the replies
// of a worker go to an emulator nobody talks to).
func checkRole(cfg Config, role bot.Role) error {
	if role != bot.RoleAll && cfg.BotToken == "" {
		return fmt.Errorf("--role %s needs BOT_TOKEN: without it every process runs an emulator of its own, "+
			"which the other processes never reach; run one process (--role all) with the emulator", role)
	}
	return nil
}

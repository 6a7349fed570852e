package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
)

// playInput is where `play` reads the player's choices; tests replace it.
var playInput io.Reader = os.Stdin

// runPlay is the `play` command: a terminal player, so that an author can try a quest without
// Telegram.
//
//	questbot play FILE [-seed S] [-lang ru|en]
//
// It shows each screen as plain text (the markup tags removed), the shown parameters and the
// choices numbered from 1; the player types a number. "q" quits. -seed fixes the game's seed
// (the default is new each time and printed, so a game can be played again); -lang selects the
// player's language (the texts the player adds, such as the button that goes on, and the ranger's
// details), by default the quest's own (questLang). Exit status: 0 when the game ends or the
// player quits, 1 on an error, 2 on bad usage.
func runPlay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return play(ctx, args, playInput, stdout, stderr, time.Now())
}

func play(ctx context.Context, args []string, in io.Reader, stdout, stderr io.Writer, now time.Time) int {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	seed := fs.String("seed", "", "game `seed` (default: a new one)")
	langFlag := fs.String("lang", "", "player `language`: ru or en (default: the quest's, from its file name or its texts)")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot play FILE [-seed S] [-lang ru|en]")
		fmt.Fprintln(w, "Plays a quest file in the terminal: type a choice's number, or q to quit.")
	}
	// The file may come before or after the flags.
	files, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return usageError(stderr, "play", "one quest file is needed")
	}
	file := files[0]

	var lang quest.Lang
	switch strings.ToLower(*langFlag) {
	case "":
	case "ru", "rus":
		lang = quest.Russian
	case "en", "eng":
		lang = quest.English
	default:
		return usageError(stderr, "play", "-lang must be ru or en, not %q", *langFlag)
	}
	if *seed == "" {
		*seed = strconv.FormatInt(now.UnixNano(), 36)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "questbot play: %v\n", err)
		return 1
	}
	mq, err := qmm.Decode(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(stderr, "questbot play: %s: %v\n", file, err)
		return 1
	}
	q, err := quest.Compile(mq)
	if err != nil {
		fmt.Fprintf(stderr, "questbot play: %s: %v\n", file, err)
		return 1
	}
	if lang == "" {
		lang = questLang(file, mq)
	}
	player := quest.DefaultPlayer(lang, now)
	s, err := q.Start(*seed)
	if err != nil {
		fmt.Fprintf(stderr, "questbot play: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s, seed %s\n", filepath.Base(file), *seed)

	lines := readLines(ctx, in)
	for {
		v, err := q.View(s, player)
		if err != nil {
			fmt.Fprintf(stderr, "questbot play: %v\n", err)
			return 1
		}
		var active []int
		printView(stdout, &v, &active)
		if len(active) == 0 {
			if v.Status == quest.Running {
				fmt.Fprintln(stdout, "*** no way on ***")
			} else {
				fmt.Fprintf(stdout, "*** %s ***\n", v.Status)
			}
			return 0
		}
		for {
			fmt.Fprint(stdout, "> ")
			var line string
			select {
			case <-ctx.Done():
				fmt.Fprintln(stdout)
				return 0
			case l, ok := <-lines:
				if !ok {
					fmt.Fprintln(stdout)
					return 0
				}
				line = strings.TrimSpace(l)
			}
			if line == "q" || line == "quit" {
				return 0
			}
			n, err := strconv.Atoi(line)
			if err != nil || n < 1 || n > len(v.Choices) {
				fmt.Fprintf(stdout, "type a choice number from 1 to %d, or q to quit\n", len(v.Choices))
				continue
			}
			c := v.Choices[n-1]
			if !c.Active {
				fmt.Fprintln(stdout, "that choice is not available")
				continue
			}
			if s, err = q.Perform(s, c.JumpID); err != nil {
				fmt.Fprintf(stderr, "questbot play: %v\n", err)
				return 1
			}
			break
		}
	}
}

// readLines sends the lines of r on the returned channel, closed at the end of input. The
// reading goroutine ends with the input (a terminal stays open until the process exits).
func readLines(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// printView writes a screen: text, parameters, numbered choices. It appends the numbers of the
// active choices to active.
func printView(w io.Writer, v *quest.View, active *[]int) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, plainText(v.Text))
	if len(v.Params) > 0 {
		fmt.Fprintln(w)
		for _, p := range v.Params {
			fmt.Fprintln(w, "  "+plainText(p))
		}
	}
	if v.Image != "" {
		fmt.Fprintf(w, "  [image %s]\n", v.Image)
	}
	fmt.Fprintln(w)
	for i, c := range v.Choices {
		mark := ""
		if !c.Active {
			mark = " (not available)"
		} else {
			*active = append(*active, i+1)
		}
		fmt.Fprintf(w, "%d. %s%s\n", i+1, plainText(c.Text), mark)
	}
}

// plainText removes the quest markup from a text: <clr>/<clrEnd> (highlighted values), <fix>
// (fixed-width block) and <format…> tags go, <br> becomes a line break. Other text in angle
// brackets is kept, since quests also use it literally.
func plainText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, '>')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		switch tag := s[1:j]; {
		case tag == "br":
			b.WriteByte('\n')
		case tag == "clr", tag == "clrEnd", tag == "fix", tag == "/fix", tag == "/format",
			tag == "format", strings.HasPrefix(tag, "format="):
		default:
			b.WriteString(s[:j+1])
		}
		s = s[j+1:]
	}
}

// questLang is the language a quest is played in when -lang does not say: the one its file's
// name ends with (x_en, x_eng: English; x_ru, x_rus: Russian, as the project's and the original
// bot's quests are named), else the language of most of its texts, as the catalogue decides for
// a file without _eng (questfs.Language).
func questLang(file string, q *qmm.Quest) quest.Lang {
	base := strings.ToLower(filepath.Base(file))
	base = strings.TrimSuffix(base, filepath.Ext(base))
	switch {
	case strings.HasSuffix(base, "_en"), strings.HasSuffix(base, "_eng"):
		return quest.English
	case strings.HasSuffix(base, "_ru"), strings.HasSuffix(base, "_rus"):
		return quest.Russian
	case questfs.Language(q) == "en":
		return quest.English
	}
	return quest.Russian
}

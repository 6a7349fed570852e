package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/questbot/questbot/qmm"
)

// runInspect is the `inspect` command: a summary of quest files for authors and operators.
//
//	questbot inspect [--json] FILE...
//
// For each file it prints the format and version, the header, the counts, the parameters, the
// start location and the strings; with --json it prints the whole decoded model instead, one
// JSON object {"file": ..., "quest": ...} per file. Flags may come before or after the files.
// A file that cannot be read or decoded is reported on stderr and the others are still
// inspected. Exit status: 0 if every file was inspected, 1 if one failed, 2 on bad usage.
func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the whole decoded model as JSON")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot inspect [--json] FILE...")
		fmt.Fprintln(w, "Summarises quest files (.qm, .qmm): format, header, counts, parameters and strings.")
	}
	files, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return usageError(stderr, "inspect", "no quest file given")
	}

	code = 0
	for i, name := range files {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(stderr, "questbot inspect: %v\n", err)
			return 1
		}
		q, err := decodeFile(name)
		if err == nil {
			if *asJSON {
				err = printJSON(stdout, name, q)
			} else {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				printSummary(stdout, name, q)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "questbot inspect: %s: %v\n", name, err)
			code = 1
		}
	}
	return code
}

// decodeFile decodes the quest file at path.
func decodeFile(path string) (*qmm.Quest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return qmm.Decode(f)
}

func printJSON(w io.Writer, name string, q *qmm.Quest) error {
	b, err := json.MarshalIndent(struct {
		File  string     `json:"file"`
		Quest *qmm.Quest `json:"quest"`
	}{name, q}, "", "  ")
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printSummary prints the readable summary of q, decoded from the file name.
func printSummary(w io.Writer, name string, q *qmm.Quest) {
	format := ".qmm"
	if q.Magic.IsQM() {
		format = ".qm"
	}
	fmt.Fprintf(w, "%s: %s, magic %s", name, format, q.Magic)
	if q.Magic.HasVersion() {
		fmt.Fprintf(w, ", version %d.%d", q.MajorVersion, q.MinorVersion)
	}
	rules := "new (TGE 5)"
	if q.OldTGE() {
		rules = "old (TGE 4)"
	}
	fmt.Fprintf(w, ", %s player rules\n", rules)
	if log, ok := q.ChangeLog.Get(); ok && log != "" {
		fmt.Fprintf(w, "  changelog: %s\n", excerpt(log, 100))
	}
	fmt.Fprintf(w, "  header: giving races 0x%02X, planet races 0x%02X, player races 0x%02X, careers 0x%02X, "+
		"when done %d, reputation %d, hardness %d, default jump limit %d, screen %dx%d, grid %dx%d\n",
		q.GivingRace, q.PlanetRace, q.PlayerRace, q.PlayerCareer, q.WhenDone, q.ReputationChange,
		q.Hardness, q.DefaultJumpCountLimit, q.ScreenSizeX, q.ScreenSizeY, q.WidthSize, q.HeightSize)

	active, changes, conditions := 0, 0, 0
	for _, p := range q.Params {
		if p.Active {
			active++
		}
	}
	var kinds [6]int // by qmm.LocationType
	for i := range q.Locations {
		changes += len(q.Locations[i].Changes)
		if t := q.Locations[i].Type(); int(t) < len(kinds) {
			kinds[t]++
		}
	}
	for i := range q.Jumps {
		changes += len(q.Jumps[i].Changes)
		conditions += len(q.Jumps[i].Conditions)
	}
	fmt.Fprintf(w, "  counts: %d parameters (%d active), %d locations (%d empty, %d success, %d fail, %d deadly), "+
		"%d jumps, %d parameter changes, %d jump conditions\n",
		len(q.Params), active, len(q.Locations), kinds[qmm.LocationEmpty], kinds[qmm.LocationSuccess],
		kinds[qmm.LocationFail], kinds[qmm.LocationDeadly], len(q.Jumps), changes, conditions)

	if start := q.StartLocation(); start >= 0 {
		l := &q.Locations[start]
		text := ""
		if len(l.Texts) > 0 {
			text = l.Texts[0].Text
		}
		fmt.Fprintf(w, "  start location: id %d, %s\n", l.ID, excerpt(text, 80))
	} else {
		fmt.Fprintln(w, "  start location: none")
	}

	if active > 0 {
		fmt.Fprintln(w, "  parameters:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, p := range q.Params {
			if p.Active {
				fmt.Fprintf(tw, "    p%d\t%s\t[%d..%d]\tstart %s\t%s\n", i+1, excerpt(p.Name, 30),
					p.Min, p.Max, excerpt(p.Starting, 20), paramTraits(&p))
			}
		}
		tw.Flush()
	}
	if disabled := disabledParams(q.Params); disabled != "" {
		fmt.Fprintf(w, "  disabled parameters: %s\n", disabled)
	}

	s := &q.Strings
	fmt.Fprintf(w, "  strings: ToStar %q, ToPlanet %q, FromStar %q, FromPlanet %q, Ranger %q, Money %q, Date %q",
		s.ToStar, s.ToPlanet, s.FromStar, s.FromPlanet, s.Ranger, s.Money, s.Date)
	if v, ok := s.Parsec.Get(); ok {
		fmt.Fprintf(w, ", Parsec %q", v)
	}
	if v, ok := s.Artefact.Get(); ok {
		fmt.Fprintf(w, ", Artefact %q", v)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  task: %s\n", excerpt(q.TaskText, 100))
	fmt.Fprintf(w, "  success: %s\n", excerpt(q.SuccessText, 100))
}

// disabledParams lists the disabled parameters as ranges, such as "p10-p48".
func disabledParams(params []qmm.Param) string {
	var parts []string
	for i := 0; i < len(params); i++ {
		if params[i].Active {
			continue
		}
		j := i
		for j+1 < len(params) && !params[j+1].Active {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("p%d-p%d", i+1, j+1))
		} else {
			parts = append(parts, fmt.Sprintf("p%d", i+1))
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

// paramTraits describes a parameter's type and flags in a few words.
func paramTraits(p *qmm.Param) string {
	var traits []string
	bound := "max"
	if p.CritType == qmm.CritMin {
		bound = "min"
	}
	switch p.Type {
	case qmm.ParamOrdinary:
	case qmm.ParamFail:
		traits = append(traits, "fails at "+bound)
	case qmm.ParamWin:
		traits = append(traits, "wins at "+bound)
	case qmm.ParamDeath:
		traits = append(traits, "kills at "+bound)
	default:
		traits = append(traits, fmt.Sprintf("type %d", p.Type))
	}
	if p.IsMoney {
		traits = append(traits, "money")
	}
	if p.ShowWhenZero {
		traits = append(traits, "shown at 0")
	}
	if len(traits) == 0 {
		return "-"
	}
	return strings.Join(traits, ", ")
}

// excerpt returns s on one line, quoted, cut to about n characters.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/migrations/pgcluster"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
)

// runQuests is the `quests` command: the catalogue from the command line.
//
//	questbot quests add [--listed] [--dialect reference|dagazbot] FILE|DIR…
//
// add lists quest files in the catalogue of every bot. FILE is a .qm or .qmm file; DIR a folder
// whose quest files (not those of its subfolders) are taken. Each file is checked as an upload
// is; one that does not play is reported and skipped. x.qmm and x_eng.qmm are the Russian and
// English versions of one quest x; the language of a file without _eng is the language of its
// texts. The files, and the images beside them that the quests name, are copied into
// UPLOADS_DIR/imported; the warnings of the checker (questfs.Lint: images found neither beside
// the quest nor in IMAGES_DIR, …) follow the table. A file imported before is found again: running the same command twice
// changes nothing. A changed file is its quest's next version, keeping what was set on the quest.
// --listed lists the quests (new ones are not listed otherwise), except test quests and stubs,
// which are never listed (questfs.Found.Hidden); --dialect sets the dialect they are played in
// (new ones: reference). A new quest's win bonus is its file's money string. A quests.json beside
// the files (questfs.Manifest) gives the quests' titles and descriptions in each language, which
// the catalogue shows and searches; the files of the shared quest corpus, which is read-only, get
// them from the project's own list of its files (quest/questfs/corpus.json) when it gives none.
//
// The database is DATABASE_URL, or the embedded one of DATA_DIR: the running bot's when one
// runs on it, else started for the command. It prints a table of what it did, then a summary.
// Exit status: 0 when every file was handled (a skipped file counts as handled), 1 on a failure
// of the database or of the files, 2 on bad usage.
func runQuests(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return quests(ctx, args, os.Getenv, stdout, stderr)
}

func quests(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot quests add [--listed] [--dialect reference|dagazbot] FILE|DIR…")
		fmt.Fprintln(w, "Adds quest files (.qm, .qmm; a folder's quest files) to the catalogue of every bot:")
		fmt.Fprintln(w, "x and x_eng are one quest's Russian and English versions; files that do not play are")
		fmt.Fprintln(w, "skipped; the files and their images are copied into UPLOADS_DIR/imported. Running it")
		fmt.Fprintln(w, "again changes nothing. The database is the bot's (DATABASE_URL or DATA_DIR).")
	}
	fs := flag.NewFlagSet("quests add", flag.ContinueOnError)
	listed := fs.Bool("listed", false, "list the quests in the catalogue (new ones are not listed otherwise)")
	dialect := fs.String("dialect", "", "the `dialect` the quests are played in: reference (new ones) or dagazbot")
	switch {
	case len(args) == 0:
		return usageError(stderr, "quests", "a subcommand is needed: add")
	case helpArgs[args[0]] || args[0] == "help":
		printHelp(fs, help, stdout)
		return 0
	case args[0] != "add":
		return usageError(stderr, "quests", "unknown subcommand %q: add", args[0])
	}
	paths, code, ok := parseOperands(fs, args[1:], help, stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		return usageError(stderr, "quests add", "no quest file or folder given")
	}
	var set importSettings
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "listed":
			set.listed = listed
		case "dialect":
			d, err := questpg.ParseDialect(*dialect)
			if err != nil {
				set.err = fmt.Errorf("--dialect must be reference or dagazbot, not %q", *dialect)
			}
			set.dialect = &d
		}
	})
	if set.err != nil {
		return usageError(stderr, "quests add", "%v", set.err)
	}
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "questbot quests add:", err)
		return 2
	}
	found, err := questfs.Find(paths, cfg.ImagesDir)
	if err != nil {
		fmt.Fprintln(stderr, "questbot quests add:", err)
		return 1
	}
	// The command's own log says only what goes wrong; its table says what it did.
	log := NewLogger(Config{LogLevel: "warn", LogFormat: cfg.LogFormat}, stderr)
	var rows []importRow
	err = withDatabase(ctx, cfg, log, func(pool *pgxpool.Pool) error {
		rows, err = importQuests(ctx, pool, cfg.UploadsDir, found, set)
		return err
	})
	printImport(stdout, rows)
	if err != nil {
		fmt.Fprintln(stderr, "questbot quests add:", err)
		return 1
	}
	return 0
}

// importSettings are what quests add sets on the quests: nil leaves it.
type importSettings struct {
	listed  *bool
	dialect *questpg.Dialect
	err     error
}

// importRow is a line of quests add's table: a file and what became of it.
type importRow struct {
	found  questfs.Found
	done   questpg.Imported
	wrote  int
	reason string // why the file was skipped; "" when it was imported
}

// importQuests copies each playable file into the quest root and lists it, one transaction per
// file, so that a failure keeps what was done before it.
func importQuests(ctx context.Context, pool *pgxpool.Pool, root string, found []questfs.Found, set importSettings) ([]importRow, error) {
	store := questpg.New()
	rows := make([]importRow, 0, len(found))
	en := texts.For("en")
	for _, f := range found {
		row := importRow{found: f}
		if f.Err != nil {
			row.reason = f.Err.Error()
			var ce *questfs.CheckError
			if errors.As(f.Err, &ce) {
				row.reason = en.QuestProblem(f.Err)
			}
			rows = append(rows, row)
			continue
		}
		file, wrote, err := questfs.Store(root, f)
		if err != nil {
			return rows, err
		}
		row.wrote = wrote
		listed := set.listed
		if f.Hidden != "" {
			// A test quest or a stub is never listed for players.
			no := false
			listed = &no
		}
		titles := map[string]questpg.Title{}
		for lang, t := range f.Titles {
			titles[lang] = questpg.Title{Title: t.Title, Description: t.Description}
		}
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			row.done, err = store.Import(ctx, tx, questpg.ImportedQuest{File: file, Name: f.Name, CommonName: f.CommonName,
				Lang: f.Lang, WinBonus: f.Bonus, Listed: listed, Dialect: set.dialect})
			if err != nil {
				return err
			}
			return store.SetTitles(ctx, tx, f.CommonName, titles)
		})
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// printImport writes quests add's table and summary.
func printImport(w io.Writer, rows []importRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no quest files found")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tRESULT\tID\tVERSION\tQUEST\tLANG\tNAME\tLISTED\tDIALECT\tBONUS\tFILES WRITTEN")
	counts := map[string]int{}
	var skipped []string
	for _, r := range rows {
		file := filepath.Base(r.found.Path)
		if r.reason != "" {
			fmt.Fprintf(tw, "%s\tskipped\t-\t-\t%s\t%s\t-\t-\t-\t-\t0\n", file, r.found.CommonName, r.found.Lang)
			skipped = append(skipped, fmt.Sprintf("skipped %s: %s", file, r.reason))
			counts["skipped"]++
			continue
		}
		d := r.done
		listed := "no"
		switch {
		case d.Listed:
			listed = "yes"
		case r.found.Hidden != "":
			listed = "no (" + r.found.Hidden + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", file, d.Status, d.ID, d.Version,
			r.found.CommonName, r.found.Lang, d.Name, listed, d.Dialect, d.WinBonus, r.wrote)
		counts[string(d.Status)]++
	}
	tw.Flush()
	for _, line := range skipped {
		fmt.Fprintln(w, line)
	}
	en := texts.For("en")
	for _, r := range rows {
		if r.reason == "" && len(r.found.Warnings) > 0 {
			fmt.Fprintf(w, "%s: %s\n", filepath.Base(r.found.Path), en.WarningList(r.found.Warnings))
		}
	}
	summary := ""
	for _, k := range []string{string(questpg.ImportAdded), string(questpg.ImportNewVersion), string(questpg.ImportUpdated),
		string(questpg.ImportUnchanged), "skipped"} {
		if counts[k] > 0 {
			if summary != "" {
				summary += ", "
			}
			summary += strconv.Itoa(counts[k]) + " " + k
		}
	}
	noun := "quest files"
	if len(rows) == 1 {
		noun = "quest file"
	}
	fmt.Fprintf(w, "%d %s: %s\n", len(rows), noun, summary)
}

// withDatabase runs fn on the bot's database, brought up to date: DATABASE_URL's, else the
// embedded cluster of DATA_DIR, which is the running bot's when one runs on it (its folder is
// locked), else started for the time of fn.
func withDatabase(ctx context.Context, cfg Config, log *slog.Logger, fn func(*pgxpool.Pool) error) error {
	url := cfg.DatabaseURL
	if url == "" {
		lock, err := lockDataDir(cfg.DataDir)
		switch {
		case errors.Is(err, ErrDataDirBusy):
			if url, err = runningEmbedded(ctx, cfg); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			emb, embURL, err := startEmbedded(ctx, cfg, lock, log)
			if err != nil {
				return err
			}
			defer emb.close()
			url = embURL
		}
	}
	pool, err := openDatabase(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	return fn(pool)
}

// runningEmbedded returns the connection string of the embedded cluster a running bot holds.
func runningEmbedded(ctx context.Context, cfg Config) (string, error) {
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return "", err
	}
	c, err := pgcluster.New(pgcluster.Options{Bin: cfg.PGBin, Root: filepath.Join(dir, "postgres"), Durable: true})
	if err != nil {
		return "", err
	}
	if !c.Running(ctx) {
		return "", fmt.Errorf("%w, and its database is not running yet; try again in a moment", ErrDataDirBusy)
	}
	return c.ConnString(embeddedDB), nil
}

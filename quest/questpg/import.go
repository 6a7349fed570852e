package questpg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// # Imported quests
//
// An operator lists quest files in the catalogue of every bot with questbot quests add (the
// files themselves are copied into the quest root by quest/questfs). A file is one version of a
// quest: its catalogue row is found again by the file, so importing the same file again changes
// nothing, and a changed file is the quest's next version, which takes its place in the
// catalogue and keeps what an admin set on the quest (its name, whether it is listed, its
// dialect, bonus and penalty) unless the import says otherwise.

// ImportedQuest is a quest file to list in the catalogue of every bot.
type ImportedQuest struct {
	// File is the stored file, relative to the quest root.
	File string
	// Name, CommonName and Lang are the quest's, for a quest new to the catalogue.
	Name, CommonName, Lang string
	// WinBonus is the win bonus of a quest new to the catalogue.
	WinBonus int
	// Listed and Dialect, when not nil, are set on the quest; nil keeps what its previous version
	// has (a new quest: not listed, the reference dialect).
	Listed  *bool
	Dialect *Dialect
}

// ImportStatus says what Import did.
type ImportStatus string

// Import's outcomes.
const (
	// ImportAdded: the quest is new to the catalogue.
	ImportAdded ImportStatus = "added"
	// ImportNewVersion: the file is a new version of a quest of the catalogue.
	ImportNewVersion ImportStatus = "new version"
	// ImportUpdated: the file was imported before; Listed or Dialect changed it.
	ImportUpdated ImportStatus = "updated"
	// ImportUnchanged: the file was imported before, as it is.
	ImportUnchanged ImportStatus = "unchanged"
)

// Imported is a quest as Import left it.
type Imported struct {
	ID      int64
	Name    string
	Version int
	Listed  bool
	Dialect Dialect
	// WinBonus is the quest's win bonus.
	WinBonus int
	Status   ImportStatus
}

// Import lists a quest file in the catalogue of every bot (see Imported quests): the row of the
// file when it was imported before (changed as q says), else a new version of the quest q.CommonName
// in q.Lang.
func (s *Store) Import(ctx context.Context, db pgx.Tx, q ImportedQuest) (Imported, error) {
	var r Imported
	err := db.QueryRow(ctx, `
		SELECT id, name, version, listed, dialect, win_bonus FROM script
		WHERE file = $1 AND service_id IS NULL AND NOT uploaded
		ORDER BY id DESC LIMIT 1 FOR UPDATE`, q.File).Scan(&r.ID, &r.Name, &r.Version, &r.Listed, &r.Dialect, &r.WinBonus)
	switch {
	case err == nil:
		r.Status = ImportUnchanged
		if (q.Listed == nil || *q.Listed == r.Listed) && (q.Dialect == nil || *q.Dialect == r.Dialect) {
			return r, nil
		}
		if q.Listed != nil {
			r.Listed = *q.Listed
		}
		if q.Dialect != nil {
			r.Dialect = *q.Dialect
		}
		if _, err := db.Exec(ctx, `UPDATE script SET listed = $2, dialect = $3 WHERE id = $1`,
			r.ID, r.Listed, r.Dialect); err != nil {
			return r, fmt.Errorf("import %s: %w", q.File, err)
		}
		r.Status = ImportUpdated
		return r, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return r, fmt.Errorf("import %s: %w", q.File, err)
	}

	// A new version: what the previous one had, unless said otherwise.
	r = Imported{Name: q.Name, Dialect: DialectReference, WinBonus: q.WinBonus, Status: ImportAdded}
	penalty := 0
	err = db.QueryRow(ctx, `
		SELECT name, listed, dialect, win_bonus, death_penalty FROM script
		WHERE common_name = $1 AND language = $2 AND service_id IS NULL AND NOT uploaded
		ORDER BY version DESC, id DESC LIMIT 1`, q.CommonName, q.Lang).
		Scan(&r.Name, &r.Listed, &r.Dialect, &r.WinBonus, &penalty)
	switch {
	case err == nil:
		r.Status = ImportNewVersion
	case !errors.Is(err, pgx.ErrNoRows):
		return r, fmt.Errorf("import %s: %w", q.File, err)
	}
	if q.Listed != nil {
		r.Listed = *q.Listed
	}
	if q.Dialect != nil {
		r.Dialect = *q.Dialect
	}
	err = db.QueryRow(ctx, `
		INSERT INTO script (name, common_name, file, version, language, listed, win_bonus, death_penalty, dialect)
		SELECT $1, $2, $3, COALESCE(max(version), 0) + 1, $4, $5, $6, $7, $8
		FROM script WHERE common_name = $2 AND language = $4
		RETURNING id, version`, r.Name, q.CommonName, q.File, q.Lang, r.Listed, r.WinBonus, penalty, r.Dialect).
		Scan(&r.ID, &r.Version)
	if err != nil {
		return r, fmt.Errorf("import %s: %w", q.File, err)
	}
	return r, nil
}

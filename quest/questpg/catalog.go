package questpg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// # The catalogue and the uploads
//
// The catalogue (script) lists the quests the bots offer; the quests the project ships come with
// the migrations. A developer's upload (dev_upload) is a versioned file of theirs, a quest or an
// image: each uploaded quest version has a private catalogue entry of its own (listed false,
// uploaded true) until an admin lists it. Whether a user may open a quest as a sandbox is the
// rule of dev_openable (migration 008): their own uploads, the listed and shipped quests, and
// for admins every quest.

// findSQL finds a quest a developer names (see Find): the newest version of their own upload of
// the name $4, else the quests matching the condition on s that %s holds (with $3 the name), that
// the user ($1) may open in the bot ($2), in the order %s.
const findSQL = `
	SELECT s.id, s.name, s.common_name, s.file, s.language, s.win_bonus, s.death_penalty, COALESCE(s.session_type_id, 0),
		s.dialect
	FROM (
		SELECT d.script_id AS id, 0 AS rank, d.version FROM dev_upload d
		WHERE d.service_id = $2 AND d.owner_id = $1 AND d.kind = 'quest' AND d.name = $4
		UNION ALL
		SELECT s.id, 1, s.version FROM script s WHERE %s) c
	JOIN script s ON s.id = c.id
	WHERE dev_openable($1, $2, s.id)
	ORDER BY %s LIMIT 1`

// fileNameIs matches a catalogue row whose file has the name $3, ignoring case and folders.
const fileNameIs = `lower(regexp_replace(s.file, '^.*[/\\]', '')) = lower($3)`

// Find returns the quest a developer names: the newest version of their own upload of that name
// (key, the upload's name), else a quest whose name, common name or file name is what, that the
// user may open, in their language first, listed first, newest first; ErrNoScript when there is
// none.
func (s *Store) Find(ctx context.Context, db pgx.Tx, service int, user int64, what, key, lang string) (*Script, error) {
	return findScript(ctx, db, fmt.Sprintf(findSQL,
		`lower(s.name) = lower($3) OR lower(s.common_name) = lower($3) OR `+fileNameIs,
		`c.rank, s.language = $5 DESC, s.listed DESC, c.version DESC, s.id DESC`),
		user, service, what, key, lang)
}

// FindByFile returns the quest a save names by its file name: the user's own upload of that name
// (key) newest first, else a quest of the bot the user may open whose file has that name;
// ErrNoScript when there is none.
func (s *Store) FindByFile(ctx context.Context, db pgx.Tx, service int, user int64, file, key string) (*Script, error) {
	return findScript(ctx, db, fmt.Sprintf(findSQL, fileNameIs, `c.rank, s.listed DESC, c.version DESC, s.id DESC`),
		user, service, file, key)
}

// Openable returns quest id when the user may open it in the bot as a sandbox; ErrNoScript when
// not.
func (s *Store) Openable(ctx context.Context, db pgx.Tx, service int, user, id int64) (*Script, error) {
	return findScript(ctx, db, `
		SELECT id, name, common_name, file, language, win_bonus, death_penalty, COALESCE(session_type_id, 0), dialect
		FROM script WHERE id = $3 AND dev_openable($1, $2, $3)`, user, service, id)
}

func findScript(ctx context.Context, db pgx.Tx, sql string, args ...any) (*Script, error) {
	var sc Script
	err := db.QueryRow(ctx, sql, args...).Scan(&sc.ID, &sc.Name, &sc.CommonName, &sc.File, &sc.Lang, &sc.WinBonus,
		&sc.DeathPenalty, &sc.SessionType, &sc.Dialect)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoScript
	}
	if err != nil {
		return nil, fmt.Errorf("find quest: %w", err)
	}
	return &sc, nil
}

// Upload is a developer's uploaded quest or image, its newest version.
type Upload struct {
	Version int
	SHA256  string
	// Script is the catalogue entry of an uploaded quest, 0 for an image.
	Script int64
	// Name is the catalogue name of the quest.
	Name string
	// File is where the upload is stored, relative to the quest root.
	File string
}

// LastUpload returns the newest version of a developer's upload of a kind ("quest", "image" or
// "source") and name; its Version is 0 when there is none.
func (s *Store) LastUpload(ctx context.Context, db pgx.Tx, service int, owner int64, kind, name string) (Upload, error) {
	var u Upload
	var script *int64
	err := db.QueryRow(ctx, `
		SELECT d.version, d.sha256, d.script_id, COALESCE(s.name, ''), d.file FROM dev_upload d
		LEFT JOIN script s ON s.id = d.script_id
		WHERE d.service_id = $1 AND d.owner_id = $2 AND d.kind = $3 AND d.name = $4
		ORDER BY d.version DESC LIMIT 1`, service, owner, kind, name).Scan(&u.Version, &u.SHA256, &script, &u.Name, &u.File)
	if errors.Is(err, pgx.ErrNoRows) {
		return Upload{}, nil
	}
	if err != nil {
		return u, fmt.Errorf("last upload %s %q: %w", kind, name, err)
	}
	if script != nil {
		u.Script = *script
	}
	return u, nil
}

// NewQuestUpload is an uploaded quest to register.
type NewQuestUpload struct {
	Service int
	Owner   int64
	// Key is the name its versions are counted by; FileName the name it was uploaded under.
	Key, FileName string
	// Name, CommonName and Lang are its catalogue entry's.
	Name, CommonName, Lang string
	Version                int
	// File is where it is stored, relative to the quest root.
	File   string
	SHA256 string
	Size   int
}

// AddQuestUpload registers a new version of a developer's quest with a private catalogue entry of
// its own, and returns the entry's id.
func (s *Store) AddQuestUpload(ctx context.Context, db pgx.Tx, q NewQuestUpload) (int64, error) {
	var script int64
	err := db.QueryRow(ctx, `
		WITH s AS (
			INSERT INTO script (service_id, name, common_name, file, version, language, listed, owner_id, uploaded)
			SELECT $1, $3, $4, $6, GREATEST($5, COALESCE(max(version), 0) + 1), $9, false, $2, true
			FROM script WHERE common_name = $4 AND language = $9
			RETURNING id)
		INSERT INTO dev_upload (service_id, owner_id, kind, name, file_name, version, file, sha256, size, script_id)
		SELECT $1, $2, 'quest', $10, $11, $5, $6, $7, $8, s.id FROM s
		RETURNING script_id`,
		q.Service, q.Owner, q.Name, q.CommonName, q.Version, q.File, q.SHA256, q.Size, q.Lang, q.Key, q.FileName).Scan(&script)
	if err != nil {
		return 0, fmt.Errorf("register quest %q: %w", q.FileName, err)
	}
	return script, nil
}

// NewFileUpload is an uploaded image or quest source to register.
type NewFileUpload struct {
	Service int
	Owner   int64
	// Key is the name its versions are counted by; FileName the name it was uploaded under.
	Key, FileName string
	Version       int
	File, SHA256  string
	Size          int
}

// AddImageUpload registers a new version of a developer's image.
func (s *Store) AddImageUpload(ctx context.Context, db pgx.Tx, im NewFileUpload) error {
	_, err := db.Exec(ctx, `
		INSERT INTO dev_upload (service_id, owner_id, kind, name, file_name, version, file, sha256, size)
		VALUES ($1, $2, 'image', $3, $4, $5, $6, $7, $8)`,
		im.Service, im.Owner, im.Key, im.FileName, im.Version, im.File, im.SHA256, im.Size)
	if err != nil {
		return fmt.Errorf("register image %q: %w", im.FileName, err)
	}
	return nil
}

// AddSourceUpload registers an uploaded quest source (a .qms text) as a new version of the
// owner's source of that name.
func (s *Store) AddSourceUpload(ctx context.Context, db pgx.Tx, src NewFileUpload) error {
	_, err := db.Exec(ctx, `
		INSERT INTO dev_upload (service_id, owner_id, kind, name, file_name, version, file, sha256, size)
		VALUES ($1, $2, 'source', $3, $4, $5, $6, $7, $8)`,
		src.Service, src.Owner, src.Key, src.FileName, src.Version, src.File, src.SHA256, src.Size)
	if err != nil {
		return fmt.Errorf("register source %q: %w", src.FileName, err)
	}
	return nil
}

// SourceFiles returns where the newest version of each of a developer's quest sources is
// stored, by name (lower case, without the extension): the files a source's #include names.
func (s *Store) SourceFiles(ctx context.Context, db pgx.Tx, service int, owner int64) (map[string]string, error) {
	rows, err := db.Query(ctx, `
		SELECT DISTINCT ON (name) name, file FROM dev_upload
		WHERE service_id = $1 AND owner_id = $2 AND kind = 'source'
		ORDER BY name, version DESC`, service, owner)
	if err != nil {
		return nil, fmt.Errorf("source files: %w", err)
	}
	files := map[string]string{}
	var name, file string
	_, err = pgx.ForEachRow(rows, []any{&name, &file}, func() error {
		files[name] = file
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source files: %w", err)
	}
	return files, nil
}

// OwnQuests returns the newest version of each of a developer's uploaded quests, the most recent
// first, at most limit.
func (s *Store) OwnQuests(ctx context.Context, db pgx.Tx, service int, owner int64, limit int) ([]Upload, error) {
	rows, err := db.Query(ctx, `
		SELECT s.id, s.name, d.version FROM (
			SELECT DISTINCT ON (name) script_id, version, created_at FROM dev_upload
			WHERE service_id = $1 AND owner_id = $2 AND kind = 'quest' AND script_id IS NOT NULL
			ORDER BY name, version DESC) d
		JOIN script s ON s.id = d.script_id
		ORDER BY d.created_at DESC, s.id DESC LIMIT $3`, service, owner, limit)
	if err != nil {
		return nil, fmt.Errorf("own quests: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Upload, error) {
		var u Upload
		err := r.Scan(&u.Script, &u.Name, &u.Version)
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("own quests: %w", err)
	}
	return list, nil
}

// Listing is an uploaded quest as /quests lists it.
type Listing struct {
	ID                int64
	Name, CommonName  string
	Version           int
	Lang              string
	Listed            bool
	WinBonus, Penalty int
	Owner             string
	// Total is the number of quests that match, beyond the ones returned.
	Total int64
}

// Uploaded returns the uploaded quests of a bot, newest first, at most limit, those whose name,
// common name or owner contain filter (lower case) when it is not empty.
func (s *Store) Uploaded(ctx context.Context, db pgx.Tx, service int, filter string, limit int) ([]Listing, error) {
	rows, err := db.Query(ctx, `
		SELECT s.id, s.name, s.common_name, s.version, s.language, s.listed, s.win_bonus, s.death_penalty,
		       COALESCE(dev_who(s.owner_id), '?'), count(*) OVER ()
		FROM script s
		WHERE s.uploaded AND (s.service_id IS NULL OR s.service_id = $1)
			AND ($2 = '' OR strpos(lower(s.name), $2) > 0 OR strpos(lower(s.common_name), $2) > 0
				OR strpos(lower(COALESCE(dev_who(s.owner_id), '')), $2) > 0)
		ORDER BY s.created_at DESC, s.id DESC LIMIT $3`, service, filter, limit)
	if err != nil {
		return nil, fmt.Errorf("uploaded quests: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Listing, error) {
		var l Listing
		err := r.Scan(&l.ID, &l.Name, &l.CommonName, &l.Version, &l.Lang, &l.Listed, &l.WinBonus, &l.Penalty,
			&l.Owner, &l.Total)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("uploaded quests: %w", err)
	}
	return list, nil
}

// UploadedImage returns the file of the newest image that the owner of an uploaded quest uploaded
// in its bot under the first of keys (image names, lower case) that has one: uploaded reports
// whether the quest is an upload at all (the images of a shipped quest are beside its file), and
// file is "" when the owner has no such image.
func (s *Store) UploadedImage(ctx context.Context, db pgx.Tx, script int64, keys []string) (uploaded bool, file string, err error) {
	var f *string
	err = db.QueryRow(ctx, `
		SELECT s.uploaded, (
			SELECT d.file FROM dev_upload d
			WHERE d.service_id = s.service_id AND d.owner_id = s.owner_id AND d.kind = 'image' AND d.name = ANY($2)
			ORDER BY array_position($2, d.name), d.version DESC LIMIT 1)
		FROM script s WHERE s.id = $1`, script, keys).Scan(&uploaded, &f)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("image %q of quest %d: %w", keys, script, err)
	}
	if f != nil {
		file = *f
	}
	return uploaded, file, nil
}

// UploadFileName returns the name an uploaded quest (its catalogue entry) was uploaded under,
// "" when it is no upload.
func (s *Store) UploadFileName(ctx context.Context, db pgx.Tx, script int64) (string, error) {
	var name string
	err := db.QueryRow(ctx, `SELECT file_name FROM dev_upload WHERE script_id = $1 ORDER BY version DESC LIMIT 1`,
		script).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("upload of quest %d: %w", script, err)
	}
	return name, nil
}

// UploadedImageNames returns the names (lower case) of the images a developer uploaded in a bot.
func (s *Store) UploadedImageNames(ctx context.Context, db pgx.Tx, service int, owner int64) (map[string]bool, error) {
	rows, err := db.Query(ctx, `
		SELECT DISTINCT name FROM dev_upload WHERE service_id = $1 AND owner_id = $2 AND kind = 'image'`, service, owner)
	if err != nil {
		return nil, fmt.Errorf("image names: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("image names: %w", err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

// StoredFiles returns the files, relative to the quest root, that the uploads and the catalogue
// name under dev/.
func (s *Store) StoredFiles(ctx context.Context, db pgx.Tx) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT file FROM dev_upload UNION SELECT file FROM script WHERE file LIKE 'dev/%'`)
	if err != nil {
		return nil, fmt.Errorf("stored files: %w", err)
	}
	files, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("stored files: %w", err)
	}
	return files, nil
}

// newFor is how long a quest is new in the catalogue: a quest whose first version came this
// recently is marked new for the players who have not played it.
const newFor = 14 * 24 * time.Hour

// Entry is a quest as the catalogue shows it to a player.
type Entry struct {
	ID int64
	// Name is the quest's title in the player's language (quest_title), else its name.
	Name string
	// Description is the quest's description in the player's language, "" for none.
	Description string
	// Langs are the languages the quest plays in (its listed versions), "en" and "ru" in order.
	Langs []string
	// New marks a quest that came to the catalogue within newFor and that the player has not
	// played.
	New bool
	// Finished is how many players of the bot finished the quest: won it, in any of its versions
	// and languages (a failure or a death is no finish).
	Finished int
}

// Page is a page of the catalogue as a user of a bot asks for it (Catalogue).
type Page struct {
	Service int
	User    int64
	// Lang is "en" or "ru"; Query, when not empty, keeps the quests whose name, common name or
	// title in any language contain it (lower case).
	Lang, Query string
	// Offset and Limit: at most Limit entries from Offset.
	Offset, Limit int
}

// catalogueMatch is the condition of Catalogue's search ($4) on a quest q of quest_list.
const catalogueMatch = `($4 = '' OR strpos(lower(q.name), $4) > 0 OR strpos(lower(q.common_name), $4) > 0
	OR EXISTS (SELECT FROM quest_title a WHERE a.common_name = q.common_name AND strpos(lower(a.title), $4) > 0))`

// Catalogue returns a page of the catalogue a user of a bot sees in p.Lang: each listed quest
// once, in that language when it has a version in it, else in English (quest_list, migration
// 005), under its title in that language when it has one, by that name; those whose name, common
// name or title in any language contain p.Query when it is not empty. It returns at most p.Limit
// entries from p.Offset, and how many there are in all.
func (s *Store) Catalogue(ctx context.Context, db pgx.Tx, p Page) ([]Entry, int, error) {
	service, user, lang, query, offset, limit := p.Service, p.User, p.Lang, p.Query, p.Offset, p.Limit
	rows, err := db.Query(ctx, `
		WITH m AS (
			SELECT q.id, q.common_name, COALESCE(t.title, q.name) AS shown, COALESCE(t.description, '') AS descr,
				count(*) OVER () AS total
			FROM quest_list($1, $3) q LEFT JOIN quest_title t ON t.common_name = q.common_name AND t.lang = $3
			WHERE `+catalogueMatch+`
			ORDER BY lower(COALESCE(t.title, q.name)), q.id LIMIT $5 OFFSET $6)
		SELECT m.id, m.shown, m.descr, m.total,
			ARRAY(SELECT DISTINCT v.language FROM script v WHERE v.common_name = m.common_name AND v.listed
				AND (v.service_id IS NULL OR v.service_id = $1) ORDER BY 1),
			(SELECT min(v.created_at) FROM script v WHERE v.common_name = m.common_name) > now() - $7::interval
				AND NOT EXISTS (SELECT FROM user_script_stats x JOIN script v ON v.id = x.script_id
					WHERE x.service_id = $1 AND x.user_id = $2 AND v.common_name = m.common_name),
			(SELECT count(DISTINCT x.user_id) FROM user_script_stats x JOIN script v ON v.id = x.script_id
				WHERE x.service_id = $1 AND v.common_name = m.common_name AND x.wins > 0)
		FROM m ORDER BY lower(m.shown), m.id`,
		service, user, lang, query, limit, offset, newFor)
	if err != nil {
		return nil, 0, fmt.Errorf("catalogue: %w", err)
	}
	total := 0
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Entry, error) {
		var e Entry
		err := r.Scan(&e.ID, &e.Name, &e.Description, &total, &e.Langs, &e.New, &e.Finished)
		return e, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("catalogue: %w", err)
	}
	if len(list) == 0 && offset > 0 {
		// Past the end (the catalogue shrank under an old page): count it alone.
		if err := db.QueryRow(ctx, `SELECT count(*) FROM quest_list($1, $2) q WHERE `+
			strings.ReplaceAll(catalogueMatch, "$4", "$3"), service, lang, query).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("catalogue: %w", err)
		}
	}
	return list, total, nil
}

// Title is a quest's title and description in one language.
type Title struct {
	Title, Description string
}

// SetTitles sets the titles and descriptions of a quest (its common name) in the languages titles
// names ("en", "ru"); the other languages keep theirs.
func (s *Store) SetTitles(ctx context.Context, db pgx.Tx, commonName string, titles map[string]Title) error {
	for lang, t := range titles {
		if _, err := db.Exec(ctx, `
			INSERT INTO quest_title (common_name, lang, title, description) VALUES ($1, $2, $3, $4)
			ON CONFLICT (common_name, lang) DO UPDATE SET title = EXCLUDED.title, description = EXCLUDED.description`,
			commonName, lang, t.Title, t.Description); err != nil {
			return fmt.Errorf("set title of %s in %s: %w", commonName, lang, err)
		}
	}
	return nil
}

// Offered returns quest id when the bot offers it to every player, listed or shipped with the
// project (as a deep link does); ErrNoScript when not.
func (s *Store) Offered(ctx context.Context, db pgx.Tx, service int, id int64) (*Script, error) {
	return findScript(ctx, db, `
		SELECT id, name, common_name, file, language, win_bonus, death_penalty, COALESCE(session_type_id, 0), dialect
		FROM script WHERE id = $1 AND (service_id IS NULL OR service_id = $2) AND (listed OR NOT uploaded)`, id, service)
}

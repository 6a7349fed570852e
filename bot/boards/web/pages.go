package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/questbot/questbot/bot/texts"
)

// The pages are plain files embedded in the binary: three HTML pages (the lobby, a game and the leaderboards), one
// style sheet and a little JavaScript, with no build step. They hold no data: the scripts fetch
// everything from the JSON API with the session cookie, so a page is the same file for every
// user and can be cached like any static file.
//
// Caching: every HTML page names its scripts and style sheet with the first bytes of their
// SHA-256 (/static/play.js?v=1a2b...), rewritten when the pages are loaded, so a browser may keep
// a static file for a year and a new binary is picked up at once; the pages themselves are
// revalidated on every load (no-cache) against their ETag.
//
// Words: the scripts take every word they show from the bot's catalogue (texts.Web.Page). The
// server makes one more static file of it, /static/words.js (the words of every language, as
// QB_WORDS), which each page loads before its other scripts, and common.js picks the viewer's
// language. So a page stays the same file for every user, words.js is cached and versioned as
// any static file, and the scripts keep no copy of the words.
//
// Security: the pages run only their own scripts and styles and talk only to their own origin
// (the Content-Security-Policy below, which also forbids other sites to frame them: only a page
// of their own origin may, as the built-in emulator's web chat does to show a Mini App), and
// they never build HTML from data (the scripts set textContent), so a player's name cannot
// inject markup.

//go:embed static
var pageFiles embed.FS

// pagesCSP is the Content-Security-Policy of every answer of Pages.
const pagesCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'self'"

// pageTypes are the content types of the embedded files by extension; a fixed table, so that
// the answers do not depend on the host's MIME database.
var pageTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
}

// pageFile is one embedded file ready to serve.
type pageFile struct {
	body    []byte
	ctype   string
	version string // the first 16 hex digits of the SHA-256 of body
}

// etag is the file's strong entity tag.
func (f *pageFile) etag() string { return `"` + f.version + `"` }

// pageSet is what Pages serves: the two pages and the static files by name (HTML files are
// served only as pages, never under /static/).
type pageSet struct {
	lobby, game, top *pageFile
	static           map[string]*pageFile
}

// loadPages reads the embedded files once per process.
var loadPages = sync.OnceValues(func() (*pageSet, error) { return readPages(pageFiles) })

// readPages builds the page set from fsys, whose files are under static/.
func readPages(fsys fs.FS) (*pageSet, error) {
	set := &pageSet{static: map[string]*pageFile{}}
	pages := map[string][]byte{}
	err := fs.WalkDir(fsys, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, "static/")
		if path.Ext(rel) == ".html" {
			pages[rel] = body
			return nil
		}
		ctype, ok := pageTypes[path.Ext(rel)]
		if !ok {
			ctype = "application/octet-stream"
		}
		set.static[rel] = newPageFile(body, ctype)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pages: read the embedded files: %w", err)
	}
	if set.static[wordsFile], err = wordsScript(); err != nil {
		return nil, err
	}
	for name, dst := range map[string]**pageFile{"games.html": &set.lobby, "play.html": &set.game, "top.html": &set.top} {
		body, ok := pages[name]
		if !ok {
			return nil, fmt.Errorf("pages: %s is not embedded", name)
		}
		// Name each static file with its version, so that it can be cached for good.
		for rel, f := range set.static {
			body = bytes.ReplaceAll(body, []byte(`"/static/`+rel+`"`), []byte(`"/static/`+rel+`?v=`+f.version+`"`))
		}
		*dst = newPageFile(body, pageTypes[".html"])
	}
	return set, nil
}

// wordsFile is the static file of the pages' words, made from the catalogue.
const wordsFile = "words.js"

// wordsScript is the script of the pages' words: QB_WORDS, their texts by language and key.
// encoding/json escapes <, > and &, so no text can end the script.
func wordsScript() (*pageFile, error) {
	words := map[string]map[string]string{}
	for _, lang := range texts.Languages() {
		words[lang] = texts.For(lang).Web.Page
	}
	js, err := json.Marshal(words)
	if err != nil {
		return nil, fmt.Errorf("pages: the words: %w", err)
	}
	body := slices.Concat([]byte("\"use strict\";\n// The words of the pages, made by the server from the bot's catalogue.\nconst QB_WORDS = "), js, []byte(";\n"))
	return newPageFile(body, pageTypes[".js"]), nil
}

// newPageFile hashes body.
func newPageFile(body []byte, ctype string) *pageFile {
	sum := sha256.Sum256(body)
	return &pageFile{body: body, ctype: ctype, version: hex.EncodeToString(sum[:8])}
}

// Pages serves the HTML pages and their static files: GET /games (the lobby), GET /play/{id}
// (a game), GET /top and /top/{game} (the leaderboards and the caller's rating chart, rating.go), GET /static/... (CSS, JS, icons), all plain files embedded in the binary. Every
// answer, errors included, carries the security headers (see pagesCSP); other paths are 404 and
// other methods than GET and HEAD 405.
func Pages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /games", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, func(s *pageSet) *pageFile { return s.lobby })
	})
	mux.HandleFunc("GET /play/{id}", func(w http.ResponseWriter, r *http.Request) {
		if id, err := strconv.ParseInt(r.PathValue("id"), 10, 64); err != nil || id <= 0 ||
			strconv.FormatInt(id, 10) != r.PathValue("id") {
			http.NotFound(w, r)
			return
		}
		servePage(w, r, func(s *pageSet) *pageFile { return s.game })
	})
	mux.HandleFunc("GET /top", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, func(s *pageSet) *pageFile { return s.top })
	})
	mux.HandleFunc("GET /top/{game}", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, func(s *pageSet) *pageFile { return s.top })
	})
	mux.HandleFunc("GET /static/{file...}", serveStatic)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pagesCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "SAMEORIGIN")
		mux.ServeHTTP(w, r)
	})
}

// servePage serves one of the HTML pages, revalidated on every load.
func servePage(w http.ResponseWriter, r *http.Request, pick func(*pageSet) *pageFile) {
	set, err := loadPages()
	if err != nil {
		http.Error(w, "the pages are not available: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	serveFile(w, r, pick(set))
}

// serveStatic serves a static file: for a year when the request names its current version
// (as the pages do), otherwise revalidated on every use.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	set, err := loadPages()
	if err != nil {
		http.Error(w, "the pages are not available: "+err.Error(), http.StatusInternalServerError)
		return
	}
	f, ok := set.static[r.PathValue("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.URL.Query().Get("v") == f.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	serveFile(w, r, f)
}

// serveFile answers with f, or 304 when the request already holds its ETag.
func serveFile(w http.ResponseWriter, r *http.Request, f *pageFile) {
	w.Header().Set("Content-Type", f.ctype)
	w.Header().Set("ETag", f.etag())
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

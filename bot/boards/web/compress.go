package web

import (
	"bufio"
	"compress/gzip"
	"net"
	"net/http"
	"strings"
	"sync"
)

// # Compression
//
// Every answer of the web view whose type is text (the pages, their scripts and style sheet,
// the JSON of the API, the exports) is sent gzip-compressed to a client that accepts it
// (Accept-Encoding), and carries Vary: Accept-Encoding whether compressed or not, so that a
// shared cache keeps both forms apart. The rest (the board pictures, already compressed PNGs)
// and the event streams (text/event-stream, whose events must reach the page as each is
// written, never held in a compressor's buffer) pass as they are.
//
// A compressed answer's entity tag is made weak (W/"…"): the compressed bytes are not the
// file's, but the same content, and a weak tag still matches the client's If-None-Match, so a
// cached script is revalidated with a 304 as before. The request's Range is ignored when the
// answer may be compressed (a range of the compressed bytes would not be the range asked).

// gzipPool recycles the compressors (each holds about 800 KB of state).
var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// compressedTypes are the content types (without parameters) worth compressing.
var compressedTypes = map[string]bool{
	"text/html": true, "text/css": true, "text/javascript": true, "application/javascript": true,
	"application/json": true, "text/plain": true, "image/svg+xml": true,
	"application/x-chess-pgn": true,
}

// compressible reports whether an answer of this Content-Type is compressed.
func compressible(ctype string) bool {
	base, _, _ := strings.Cut(ctype, ";")
	return compressedTypes[strings.ToLower(strings.TrimSpace(base))]
}

// acceptsGzip reports whether the request's Accept-Encoding admits gzip (with a q above 0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if c := strings.ToLower(strings.TrimSpace(coding)); c != "gzip" && c != "x-gzip" {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
				return false
			}
			return true
		}
	}
	return false
}

// compress serves h with its text answers compressed for the clients that accept gzip.
func compress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acceptsGzip(r) {
			h.ServeHTTP(&varyWriter{ResponseWriter: w}, r)
			return
		}
		r.Header.Del("Range")
		r.Header.Del("If-Range")
		gw := &gzipWriter{varyWriter: varyWriter{ResponseWriter: w}, head: r.Method == http.MethodHead}
		defer gw.close()
		h.ServeHTTP(gw, r)
	})
}

// varyWriter adds Vary: Accept-Encoding to the answers that may be compressed, for a client
// that does not accept gzip.
type varyWriter struct {
	http.ResponseWriter
	wrote bool
}

func (v *varyWriter) WriteHeader(status int) {
	if !v.wrote {
		v.wrote = true
		if compressible(v.Header().Get("Content-Type")) {
			v.Header().Add("Vary", "Accept-Encoding")
		}
	}
	v.ResponseWriter.WriteHeader(status)
}

func (v *varyWriter) Write(p []byte) (int, error) {
	if !v.wrote {
		v.WriteHeader(http.StatusOK)
	}
	return v.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (v *varyWriter) Unwrap() http.ResponseWriter { return v.ResponseWriter }

// Flush sends what was written; an uncompressed answer (an event stream) is flushed as is.
func (v *varyWriter) Flush() {
	if !v.wrote {
		v.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(v.ResponseWriter).Flush()
}

// Hijack passes to the connection (no answer of the web view hijacks it today).
func (v *varyWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(v.ResponseWriter).Hijack()
}

// gzipWriter compresses the body of a text answer, decided when its header is written.
type gzipWriter struct {
	varyWriter
	head bool
	gz   *gzip.Writer // nil: the answer passes uncompressed
}

func (g *gzipWriter) WriteHeader(status int) {
	if g.wrote {
		g.ResponseWriter.WriteHeader(status)
		return
	}
	g.wrote = true
	h := g.Header()
	if !compressible(h.Get("Content-Type")) || h.Get("Content-Encoding") != "" {
		g.ResponseWriter.WriteHeader(status)
		return
	}
	h.Add("Vary", "Accept-Encoding")
	// An answer without a body (HEAD, 204, 304, 1xx) keeps its headers as they are, but for the
	// weak tag that a compressed 200 would have carried.
	if tag := h.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
		h.Set("ETag", "W/"+tag)
	}
	if g.head || status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		if status >= 200 {
			h.Del("Content-Length")
		}
		g.ResponseWriter.WriteHeader(status)
		return
	}
	h.Del("Content-Length")
	h.Set("Content-Encoding", "gzip")
	gz := gzipPool.Get().(*gzip.Writer)
	gz.Reset(g.ResponseWriter)
	g.gz = gz
	g.ResponseWriter.WriteHeader(status)
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.wrote {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(p))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.gz == nil {
		return g.ResponseWriter.Write(p)
	}
	return g.gz.Write(p)
}

// Flush sends what was written so far, compressed or not.
func (g *gzipWriter) Flush() {
	if !g.wrote {
		g.WriteHeader(http.StatusOK)
	}
	if g.gz != nil {
		g.gz.Flush()
	}
	http.NewResponseController(g.ResponseWriter).Flush()
}

// close ends the compressed body and returns the compressor to the pool.
func (g *gzipWriter) close() {
	if g.gz == nil {
		return
	}
	g.gz.Close()
	g.gz.Reset(nil)
	gzipPool.Put(g.gz)
	g.gz = nil
}

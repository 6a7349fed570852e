package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// runServe is the `serve` command: it reads the configuration from the environment and runs the
// bot until the context is cancelled (SIGINT or SIGTERM).
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "questbot serve takes no arguments; it is configured by environment variables (see the README)")
		return 2
	}
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	log := NewLogger(cfg, stderr)
	s := &Server{Config: cfg, Log: log}
	if err := s.Run(ctx); err != nil {
		log.Error("Stopped with an error", slog.Any("error", err))
		return 1
	}
	return 0
}

// Server is a running `questbot serve`: the HTTP side, the database and, once configured, the
// Telegram transport.
type Server struct {
	Config Config
	Log    *slog.Logger
	// Listening, if set, is called with the HTTP address once the listener is open (tests use it
	// with HTTP_ADDR=127.0.0.1:0).
	Listening func(addr net.Addr)

	pool  atomic.Pointer[pgxpool.Pool]
	ready atomic.Bool
}

// Run starts everything, blocks until ctx is cancelled, then shuts down in reverse order. The HTTP
// listener opens first, so /healthz answers 503 while the database is still starting.
func (s *Server) Run(ctx context.Context) error {
	// The embedded database's folder is locked before anything else, so a second `make run`
	// says plainly that one is already running.
	var lock *os.File
	if s.Config.DatabaseURL == "" {
		l, err := lockDataDir(s.Config.DataDir)
		if err != nil {
			return err
		}
		lock = l
	}
	ln, err := net.Listen("tcp", s.Config.HTTPAddr)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return fmt.Errorf("http: %w (is another program using HTTP_ADDR=%s?)", err, s.Config.HTTPAddr)
	}
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	httpDone := make(chan error, 1)
	go func() { httpDone <- srv.Serve(ln) }()
	s.Log.Info("HTTP listening", slog.String("addr", ln.Addr().String()), slog.String("version", version))
	if s.Listening != nil {
		s.Listening(ln.Addr())
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			s.Log.Warn("HTTP shutdown", slog.Any("error", err))
		}
		<-httpDone
	}()

	url := s.Config.DatabaseURL
	if url == "" {
		emb, embURL, err := startEmbedded(ctx, s.Config, lock, s.Log)
		if err != nil {
			return err
		}
		defer emb.close()
		url = embURL
	}
	pool, err := openDatabase(ctx, url)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	s.pool.Store(pool)
	s.ready.Store(true)
	s.Log.Info("Database ready")

	if s.Config.BotToken == "" {
		s.Log.Warn("No Telegram transport is configured: BOT_TOKEN is not set")
	} else {
		s.Log.Warn("BOT_TOKEN is set, but this build has no Telegram transport yet; only the HTTP side runs")
	}

	select {
	case <-ctx.Done():
		s.Log.Info("Shutting down")
	case err := <-httpDone:
		httpDone <- err // for the deferred shutdown
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http: %w", err)
		}
	}
	s.ready.Store(false)
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	return mux
}

// healthz answers 200 once the database is migrated and still answers, 503 otherwise.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	pool := s.pool.Load()
	if !s.ready.Load() || pool == nil {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		s.Log.Warn("Health check: database unreachable", slog.Any("error", err))
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

package devtools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/questbot/questbot/bot"
)

// sweepAge is how old a stored upload must be before Sweep removes it unreferenced, so that the
// file of an upload whose transaction is still open is left alone.
const sweepAge = time.Hour

// Doer runs work in a transaction of its own (bot.Transport.Do).
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx bot.Tx) error) error
}

// SweepSpec is how often Sweep runs as a scheduled job.
const SweepSpec = "@every 1h"

// Sweep removes what uploads left behind: stored files that no row names (the transaction that
// was to register them failed, or a row was deleted by hand) once they are an hour old, and the
// files sent by /dump, /write and /save after a day; and the uploads quarantined (fetch.go)
// longer than quarantineAge ago. It returns how many files it removed. It runs at start and as
// a scheduled job (SweepSpec).
func (t *Tools) Sweep(ctx context.Context, do Doer) (int, error) {
	var files []string
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		if _, err := t.fetches.DropQuarantined(ctx, tx.DB(), quarantineAge); err != nil {
			return err
		}
		var err error
		files, err = t.store.StoredFiles(ctx, tx.DB())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("devtools: sweep: %w", err)
	}
	used := map[string]bool{}
	for _, f := range files {
		used[filepath.Clean(f)] = true
	}
	removed := 0
	for _, dir := range []string{"dev/quests", "dev/images", "dev/sources"} {
		entries, err := os.ReadDir(filepath.Join(t.root, dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := filepath.Join(dir, e.Name())
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() || used[rel] || t.now().Sub(info.ModTime()) < sweepAge {
				continue
			}
			if os.Remove(filepath.Join(t.root, rel)) == nil {
				removed++
			}
		}
	}
	t.mu.Lock()
	t.lastClean = time.Time{}
	t.mu.Unlock()
	t.cleanOutputs()
	return removed, nil
}

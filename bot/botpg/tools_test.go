package botpg

import (
	"context"
	"errors"
	"testing"
)

// Ensure the records the emulator and the load checks keep through this store: a bot found by
// its Telegram id (and a clear error for none), a bot of a load check, the users of a range, a
// user removed only when nothing keeps them, the file ids of a bot forgotten.
func TestTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pool, service := newStore(t)
	if got, err := ServiceOfBot(ctx, pool, 1); err != nil || got != service {
		t.Fatalf("service of bot 1: %d, %v; want %d", got, err, service)
	}
	if _, err := ServiceOfBot(ctx, pool, 99); !errors.Is(err, ErrNoService) {
		t.Fatalf("service of an unknown bot: %v, want ErrNoService", err)
	}
	if other, err := CreateService(ctx, pool, "load_bot"); err != nil || other == service {
		t.Fatalf("create a bot: %d, %v", other, err)
	}
	const from, to = int64(8_000_000_000), int64(8_000_000_100)
	if got, err := MaxUserID(ctx, pool, from, to); err != nil || got != from-1 {
		t.Fatalf("no user in the range: %d, %v; want %d", got, err, from-1)
	}
	for _, id := range []int64{from + 3, from + 7, to + 1} {
		if err := EnsureUser(ctx, pool, id, "Load"); err != nil {
			t.Fatal(err)
		}
	}
	if err := EnsureUser(ctx, pool, from+3, "Again"); err != nil {
		t.Fatal(err)
	}
	if got, err := MaxUserID(ctx, pool, from, to); err != nil || got != from+7 {
		t.Fatalf("the range's last user: %d, %v; want %d", got, err, from+7)
	}
	// A user a game seat refers to is kept.
	if _, err := pool.Exec(ctx, `INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by,
		created_at, start_position, position, to_move) VALUES ($1, 'russian', 1, 'none', 'waiting', $2, now(), '', '', 0)`,
		service, from+3); err != nil {
		t.Fatal(err)
	}
	if gone, err := DeleteUnusedUser(ctx, pool, from+3); err != nil || gone {
		t.Fatalf("a user a game refers to: deleted %v, %v", gone, err)
	}
	if gone, err := DeleteUnusedUser(ctx, pool, from+7); err != nil || !gone {
		t.Fatalf("an unused user: deleted %v, %v", gone, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO tg_file (service_id, path, size, mod_time, file_id) VALUES ($1, 'a.png', 1, now(), 'F')`,
		service); err != nil {
		t.Fatal(err)
	}
	if n, err := ForgetFiles(ctx, pool, 1); err != nil || n != 1 {
		t.Fatalf("forget the files: %d, %v; want 1", n, err)
	}
}

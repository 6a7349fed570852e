package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
)

// emulatorStateDir is the folder, under DATA_DIR, where the emulator keeps its chats.
const emulatorStateDir = "tgemu"

// openEmulator opens the built-in Bot API emulator with the state it kept in DATA_DIR, so that a
// restarted bot finds its web chat users, their chats and the numbering of updates as they were,
// and adds the emulated bot and the web chat. The web chat asks the database for the users the
// bot knows before it gives out a new id. A load check's emulator (emulatorOnly) keeps nothing on
// disk: its journal, synced at every change, would time this machine's disk, not the bot.
func (s *Server) openEmulator() error {
	// PUBLIC_URL on this machine or a private network is an operator's local trial: the
	// emulator fetches pictures from it, as Telegram would from a public one.
	opts := tgemu.Options{EnforceRateLimits: true, Log: s.Log, StateDir: filepath.Join(s.Config.DataDir, emulatorStateDir),
		LocalURL: s.Config.PublicURL}
	if s.emulatorOnly {
		opts.StateDir = ""
	}
	if opts.StateDir != "" {
		// DATA_DIR made here is made as the embedded database needs it (makeDataDir), not as
		// the emulator's private folder inside it is.
		if err := makeDataDir(s.Config.DataDir); err != nil {
			return err
		}
	}
	emu, err := tgemu.Open(opts)
	if errors.Is(err, tgemu.ErrStateBusy) {
		return fmt.Errorf("%w; another questbot without BOT_TOKEN runs with DATA_DIR=%s: stop it first or set another DATA_DIR", err, s.Config.DataDir)
	}
	if err != nil {
		return err
	}
	s.emu = emu
	s.emuBot = emu.AddBot(emulatorToken(), "questbot")
	s.chat = webchat.New(s.emu, s.emuBot)
	s.chat.KnownUsers = s.knownWebchatUsers
	if u, err := url.Parse(s.Config.PublicURL); err == nil && u.Hostname() != "" {
		// The chat answers at the public address too (a local trial through a tunnel or a name).
		s.chat.Hosts = []string{u.Hostname()}
	}
	if emu.Restored() {
		s.Log.Info("Emulator state restored", slog.Int("users", len(s.emuBot.Users())))
	}
	return nil
}

// knownWebchatUsers waits for the database and returns the highest id of the web chat's range
// that the bot knows.
func (s *Server) knownWebchatUsers(ctx context.Context) (int64, error) {
	select {
	case <-s.dbReady:
	case <-ctx.Done():
		return 0, errors.New("the database is not ready yet")
	}
	id, err := botpg.MaxUserID(ctx, s.pool.Load(), webchat.FirstUserID, webchat.LastUserID)
	if err != nil {
		return 0, fmt.Errorf("known users: %w", err)
	}
	if id < webchat.FirstUserID {
		return 0, nil
	}
	return id, nil
}

// forgetEmulatorFiles removes the file_ids the bot keeps for the emulated bot (botUserID), when
// the emulator starts without a saved state: they were given by an emulator that is gone (one of
// an earlier run whose state was lost, or of a version that kept none), and the bot would send
// them instead of uploading its files again. It returns how many it removed.
func forgetEmulatorFiles(ctx context.Context, pool *pgxpool.Pool, botUserID int64) (int64, error) {
	return botpg.ForgetFiles(ctx, pool, botUserID)
}

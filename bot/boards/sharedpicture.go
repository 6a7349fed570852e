package boards

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Pictures by address
//
// A message a whole chat sees (an inline message, bot/boards/telegram's inline.go) cannot take an
// upload: Telegram edits its photo only from a URL it fetches or a file_id it has. So with a web
// game server that Telegram can reach (Config.PublicURL, unless Config.PublicURLLocal says it is
// only the listener's own address), the picture of such a board goes by
// the server's address of it: SharedPictureURL. The address names the position it shows (the ply
// and PictureVersion), so that it changes with every move and Telegram, which keeps what it
// fetched by URL, never shows an old position for a new one; and it carries a key derived from
// the board's invitation (SharedPictureKey), which lets whoever knows the address (Telegram; the
// chat sees only the picture) fetch the picture without a session, while nobody can guess the
// address of a board they were not shown. The challenges offered in the inline results, which
// are no board yet, show the start position of their game: StartPictureURL, public. Both
// addresses name the JPEG of the picture, which Telegram's documentation asks of the photos of
// inline results (the server draws PNG and re-encodes it for these addresses).

// SharedPictureKey is the key of the picture address of a board played in a shared message whose
// invitation is invite: a digest, so that the address never reveals the invitation.
func SharedPictureKey(invite string) string {
	sum := sha256.Sum256([]byte("shared picture\x00" + invite))
	return hex.EncodeToString(sum[:12])
}

// SharedPictureKeyValid reports whether key is the picture key of a board whose invitation is
// invite, in constant time.
func SharedPictureKeyValid(invite, key string) bool {
	return invite != "" && subtle.ConstantTimeCompare([]byte(SharedPictureKey(invite)), []byte(key)) == 1
}

// SharedInvites gives the invitation (its digest) of the message a board is played in when a
// whole chat sees it, a record of the Telegram view, which hands it to the service
// (SetSharedInvites); false when the board has none. db is the caller's transaction.
type SharedInvites func(ctx context.Context, db pgx.Tx, board int64) (invite string, ok bool, err error)

// SetSharedInvites gives the service the invitations of the shared messages, for
// SharedPictureOpens. It is called while the bot is composed, before any request.
func (b *Boards) SetSharedInvites(f SharedInvites) { b.sharedInvites = f }

// SharedPictureOpens reports whether key opens the picture of a board to whoever gives it: the
// board is played in a shared message, and key is the picture key of its invitation
// (SharedPictureKey). Without the view that keeps the shared messages, no key opens any.
func (b *Boards) SharedPictureOpens(ctx context.Context, db pgx.Tx, board int64, key string) (bool, error) {
	if b.sharedInvites == nil {
		return false, nil
	}
	invite, ok, err := b.sharedInvites(ctx, db, board)
	if err != nil || !ok {
		return false, err
	}
	return SharedPictureKeyValid(invite, key), nil
}

// SharedPictureURL returns the address, on the web game server, of the picture of a board played
// in a shared message (White's or the first side's view, as the message shows it), "" when no
// web game server Telegram can reach is configured (Config.PublicURL, Config.PublicURLLocal).
func (b *Boards) SharedPictureURL(bd *board.Board, invite string) (string, error) {
	if b.pictures == "" {
		return "", nil
	}
	g, err := bd.Game()
	if err != nil {
		return "", err
	}
	q := url.Values{"seat": {"0"}, "ply": {fmt.Sprint(bd.Ply())}, "v": {PictureVersion(g)}, "k": {SharedPictureKey(invite)}}
	return fmt.Sprintf("%s/api/v1/games/%d/picture.jpg?%s", b.pictures, bd.ID, q.Encode()), nil
}

// StartPictureURL returns the address, on the web game server, of the picture of a game's start
// position (StartPicture) and the picture's size in pixels, without drawing it (the server draws
// it when it is fetched); "" when no web game server Telegram can reach is configured
// (Config.PublicURL, Config.PublicURLLocal).
func (b *Boards) StartPictureURL(variant string) (u string, width, height int, err error) {
	if b.pictures == "" {
		return "", 0, 0, nil
	}
	g, err := engine.NewGame(variant)
	if err != nil {
		return "", 0, 0, err
	}
	im := g.ImageMap(engine.Player(0))
	u = fmt.Sprintf("%s/api/v1/variants/%s/picture.jpg?v=%s", b.pictures, url.PathEscape(variant), PictureVersion(g))
	return u, im.Width, im.Height, nil
}

// StartPicture returns the file of the picture of a game's start position, White's or the first
// side's view, and its version (PictureVersion). Only the games offered (Offered) have one:
// board.ErrNotFound for any other name.
func (b *Boards) StartPicture(ctx context.Context, variant string) (path, version string, err error) {
	if !Offered(variant) {
		return "", "", fmt.Errorf("boards: start picture of %q: %w", variant, board.ErrNotFound)
	}
	g, err := engine.NewGame(variant)
	if err != nil {
		return "", "", err
	}
	path, err = b.picture(ctx, g, engine.ImageOptions{Viewer: engine.Player(0)})
	return path, PictureVersion(g), err
}

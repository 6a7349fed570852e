package boards

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// ArchiveFilter is what a page of an archive asks for (boardpg.ArchiveFilter), for the views.
type ArchiveFilter = boardpg.ArchiveFilter

// The results an archive filters by, from its player's side.
const (
	ResultWin  = boardpg.ResultWin
	ResultLoss = boardpg.ResultLoss
	ResultDraw = boardpg.ResultDraw
)

// # The archive
//
// A player's finished games, a page at a time, newest first, with the filters of
// boardpg.ArchiveFilter (game, result, opponent, clock, when it ended); a page ends with the
// cursor of the next one (boardpg's archive.go says why a cursor and not an offset). The views
// word the games; who may see a game of someone else's is their rule of watching, which the
// store applies first so that a page is full.

// archiveStore is what the archive and the rematches need of the store beyond Store:
// boardpg's.
type archiveStore interface {
	Archive(ctx context.Context, f boardpg.ArchiveFilter) ([]boardpg.ArchiveGame, error)
	Opponents(ctx context.Context, service int, user int64, limit int) ([]int64, error)
	RematchOf(ctx context.Context, id int64) (boardpg.Rematch, bool, error)
	AddRematch(ctx context.Context, id int64, r boardpg.Rematch) (bool, error)
	RematchFrom(ctx context.Context, id int64) (old int64, ok bool, err error)
}

// archives is the store of the archive and the rematches in db: the service's store when it
// has them, else boardpg's in the same transaction.
func (b *Boards) archives(db pgx.Tx) archiveStore {
	if a, ok := b.store(db).(archiveStore); ok {
		return a
	}
	return boardpg.New(db)
}

// MaxArchivePage is the most games of one page of the archive.
const MaxArchivePage = 100

// ArchiveGame is a game of the archive: the board, the archive player's seat in it, and whether
// its players let spectators in.
type ArchiveGame struct {
	Board      *board.Board
	Seat       int
	Spectators bool
}

// ArchivePage is a page of the archive; Next is the cursor of the next page (boardpg's
// ArchiveFilter.Before), 0 after the last.
type ArchivePage struct {
	Games []ArchiveGame
	Next  int64
}

// Archive returns a page of a player's finished games that f selects (f.Limit, between 1 and
// MaxArchivePage, is the page's size), read in db. Returns board.ErrInvalid for a result that
// is none of boardpg's.
func (b *Boards) Archive(ctx context.Context, db pgx.Tx, f boardpg.ArchiveFilter) (*ArchivePage, error) {
	limit := min(max(f.Limit, 1), MaxArchivePage)
	f.Limit = limit + 1
	list, err := b.archives(db).Archive(ctx, f)
	if err != nil {
		return nil, err
	}
	page := &ArchivePage{}
	if len(list) > limit {
		list = list[:limit]
		page.Next = list[limit-1].ID
	}
	st := b.store(db)
	for _, g := range list {
		bd, err := st.Get(ctx, g.ID)
		if err != nil {
			return nil, err
		}
		page.Games = append(page.Games, ArchiveGame{Board: bd, Seat: g.Seat, Spectators: g.Spectators})
	}
	return page, nil
}

// Opponents returns the users a player has finished games against, the latest first, at most
// limit: the archive's choice of an opponent.
func (b *Boards) Opponents(ctx context.Context, db pgx.Tx, service int, user int64, limit int) ([]int64, error) {
	return b.archives(db).Opponents(ctx, service, user, limit)
}

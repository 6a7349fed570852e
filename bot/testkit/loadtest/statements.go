package loadtest

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// Statements counts what a pool's connections ask of PostgreSQL: the statements, and the round
// trips they take (a statement on its own is one; a batch, pipelined, is one whatever its
// size). Set it as the pool's tracer (pgx.ConnConfig.Tracer) and give it to Options, and the
// report gives both per update.
type Statements struct {
	statements, trips atomic.Int64
}

var (
	_ pgx.QueryTracer = (*Statements)(nil)
	_ pgx.BatchTracer = (*Statements)(nil)
)

// TraceQueryStart counts a statement sent on its own.
func (s *Statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	s.statements.Add(1)
	s.trips.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (s *Statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart counts a batch's statements and its round trip.
func (s *Statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	s.statements.Add(int64(data.Batch.Len()))
	s.trips.Add(1)
	return ctx
}

// TraceBatchQuery does nothing.
func (s *Statements) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd does nothing.
func (s *Statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// read returns the counts so far.
func (s *Statements) read() (statements, trips int64) {
	if s == nil {
		return 0, 0
	}
	return s.statements.Load(), s.trips.Load()
}

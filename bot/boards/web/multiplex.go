package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot/boards"
)

// # One stream for every page of a browser
//
// A browser opens at most six connections to one host over HTTP/1.1, so a stream per page
// leaves the seventh tab blank. The pages therefore share one stream per browser (the page
// script static/live.js, with the shared worker static/liveworker.js): GET /api/v1/events
// follows several games and tournaments at once, each from its own number, and carries each
// event with what it belongs to. The browser's script opens the stream anew, with the numbers it
// has reached, when the set of what its pages follow changes or the connection breaks; the SSE
// events carry no id, since one number cannot resume several records.
//
// The stream counts as one against Config.Streams. Each game keeps its own grant (revoke.go):
// when it ends, the stream says so (MuxEnded) and follows the others on; when the session or
// token ends, every grant ends and so does the stream.

// MaxFollowed is the most games and tournaments one multiplexed stream follows.
const MaxFollowed = 64

// The SSE event names of the multiplexed stream beside RecordEvent and ResetEvent (a game's):
const (
	// MuxTournament is an event of a tournament's record; MuxTournamentReset a tournament
	// whose number could not be resumed (ResetEvent's data).
	MuxTournament      = "tournament"
	MuxTournamentReset = "tournament_reset"
	// MuxRefused is a game or tournament the stream does not follow, with the refusal's
	// status and error: {"game":7,"status":404,"code":"not_found","message":"..."}.
	MuxRefused = "refused"
	// MuxEnded is a game whose grant ended (the spectators switched off): {"game":7}.
	MuxEnded = "ended"
	// MuxFollowing opens the events of each game or tournament followed: the number the
	// stream goes on from, {"game":7,"last":130}, which the client names when it opens the
	// stream anew.
	MuxFollowing = "following"
)

// followSpec is one game or tournament a multiplexed stream is asked to follow: its id and the
// number of the last event the client has of it (resumed false: none, a new follow).
type followSpec struct {
	tournament bool
	id, after  int64
	resumed    bool
}

// parseFollows reads the query's game=<id>[:<last>] and tournament=<id>[:<last>] parameters.
func parseFollows(r *http.Request) ([]followSpec, error) {
	var out []followSpec
	seen := map[followSpec]bool{}
	q := r.URL.Query()
	for _, kind := range []string{"game", "tournament"} {
		for _, v := range q[kind] {
			for _, item := range strings.Split(v, ",") {
				ids, last, hasLast := strings.Cut(item, ":")
				f := followSpec{tournament: kind == "tournament"}
				var err error
				if f.id, err = strconv.ParseInt(ids, 10, 64); err != nil || f.id <= 0 {
					return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("%s %q: want <id>[:<last event>]", kind, item))
				}
				if hasLast {
					if f.after, err = strconv.ParseInt(last, 10, 64); err != nil || f.after < 0 {
						return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("%s %q: want <id>[:<last event>]", kind, item))
					}
					f.resumed = true
				}
				key := followSpec{tournament: f.tournament, id: f.id}
				if seen[key] {
					return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("%s %d is named twice", kind, f.id))
				}
				seen[key] = true
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		return nil, apiErr(http.StatusBadRequest, "bad_request", "Name a game or a tournament to follow: game=<id>[:<last event>].")
	}
	if len(out) > MaxFollowed {
		return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("At most %d games and tournaments in one stream.", MaxFollowed))
	}
	return out, nil
}

// follow is a game or tournament a multiplexed stream follows.
type follow struct {
	spec followSpec
	// c is the subscription's signal; next reads what it has, as the SSE text to write and,
	// for a game, its events (which the hub's metrics count).
	c    <-chan struct{}
	next func(ctx context.Context) (text string, evs []boards.Event, err error)
	// live says the events next reads were made while the stream was open (not a replay).
	live bool
	// head is what the stream says of it first: where it goes on from, and a reset.
	head string
	// revoked is closed when the grant of a game's follow ends (nil for a tournament, which
	// ends with the stream's credentials); close ends the subscription and the grant.
	revoked <-chan struct{}
	close   func()
}

// muxEvents is GET /api/v1/events?game=<id>[:<last>]&tournament=<id>[:<last>]: one stream of
// the events of several games and tournaments (see above).
func (s *Server) muxEvents(w http.ResponseWriter, r *http.Request, c *caller) error {
	specs, err := parseFollows(r)
	if err != nil {
		return err
	}
	if s.cfg.Events == nil {
		return apiErr(http.StatusServiceUnavailable, "unavailable", "Live updates are not available; reload the page instead.")
	}
	ctx := r.Context()
	// The stream ends with the session or token it was opened with (revoke.go).
	revoked, release, err := s.guardCredentials(ctx, c)
	if err != nil {
		return err
	}
	defer release()
	key := s.key(c, r)
	if !s.streams.acquire(key) {
		return apiErr(http.StatusTooManyRequests, "too_many_streams", "Too many live updates are open for you at once; close some pages.")
	}
	defer s.streams.release(key)

	var follows []*follow
	defer func() {
		for _, f := range follows {
			if f != nil {
				f.close()
			}
		}
	}()
	var head strings.Builder
	fmt.Fprintf(&head, "retry: %d\n\n", RetryMillis)
	for _, sp := range specs {
		f, err := s.openFollow(ctx, c, sp)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			ae := s.mapErr(err, c)
			name := "game"
			if sp.tournament {
				name = "tournament"
			}
			data, _ := json.Marshal(map[string]any{name: sp.id, "status": ae.Status, "code": ae.Code, "message": ae.Message})
			fmt.Fprintf(&head, "event: %s\ndata: %s\n\n", MuxRefused, data)
			continue
		}
		head.WriteString(f.head)
		follows = append(follows, f)
	}
	obs, _ := s.cfg.Events.(streamObserver)
	if obs != nil {
		obs.streamOpened()
		defer obs.streamClosed()
	}
	write, ok := openStream(w)
	if !ok {
		return nil
	}
	if !write(head.String()) {
		return nil
	}
	// One goroutine per follow waits for its signals and its grant's end, and hands them to
	// this one, which alone reads the records and writes.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake, gone := make(chan int), make(chan int)
	for i, f := range follows {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-f.revoked:
					select {
					case gone <- i:
					case <-ctx.Done():
					}
					return
				case <-f.c:
					select {
					case wake <- i:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	t := time.NewTicker(PingInterval)
	defer t.Stop()
	left := len(follows)
	for left > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-revoked:
			return nil
		case i := <-gone:
			f := follows[i]
			f.close()
			follows[i] = nil
			left--
			if !write(fmt.Sprintf("event: %s\ndata: {\"game\":%d}\n\n", MuxEnded, f.spec.id)) {
				return nil
			}
		case i := <-wake:
			f := follows[i]
			if f == nil {
				continue
			}
			text, evs, err := f.next(ctx)
			if err != nil {
				// The subscription stays lost and reads again at its next signal.
				continue
			}
			if text != "" && !write(text) {
				return nil
			}
			if obs != nil && len(evs) > 0 {
				obs.delivered(evs, f.live)
			}
			f.live = true
		case <-t.C:
			if !write(": ping\n\n") {
				return nil
			}
		}
	}
	return nil
}

// openFollow checks c's right to follow what sp names and subscribes to it from sp's number, as
// the stream of the game or tournament alone would (serveEvents, serveTournamentEvents).
func (s *Server) openFollow(ctx context.Context, c *caller, sp followSpec) (*follow, error) {
	if sp.tournament {
		return s.openTournamentFollow(ctx, c, sp)
	}
	st, bd, err := s.viewState(ctx, c, sp.id)
	if err != nil {
		return nil, err
	}
	revoked, release, err := s.guardGame(ctx, c, sp.id, st, bd)
	if err != nil {
		return nil, err
	}
	records := s.cfg.Events.Records()
	after, reset, err := gameStart(ctx, records, sp.id, sp.after, sp.resumed)
	if err != nil {
		release()
		return nil, apiErr(http.StatusServiceUnavailable, "unavailable", "The board's events cannot be read now.")
	}
	sub := s.cfg.Events.Follow(sp.id, after)
	f := &follow{spec: sp, c: sub.C, revoked: revoked, live: reset >= 0 || !sp.resumed,
		close: func() { sub.Close(); release() }}
	f.head = fmt.Sprintf("event: %s\ndata: {\"game\":%d,\"last\":%d}\n\n", MuxFollowing, sp.id, after)
	if reset >= 0 {
		f.head += fmt.Sprintf("event: %s\ndata: {\"id\":%d,\"last\":%d}\n\n", ResetEvent, sp.id, reset)
	}
	f.next = func(ctx context.Context) (string, []boards.Event, error) {
		evs, err := sub.Next(ctx, records)
		if err != nil || len(evs) == 0 {
			return "", nil, err
		}
		return muxText(RecordEvent, evs), evs, nil
	}
	return f, nil
}

// openTournamentFollow is openFollow of a tournament.
func (s *Server) openTournamentFollow(ctx context.Context, c *caller, sp followSpec) (*follow, error) {
	if _, err := s.readTournament(ctx, c, sp.id); err != nil {
		return nil, s.tournamentRefusal(err, c)
	}
	ev := s.cfg.TournamentEvents
	if ev == nil {
		return nil, apiErr(http.StatusServiceUnavailable, "unavailable", "Live updates are not available; reload the page instead.")
	}
	records := ev.Records()
	after, resumed := sp.after, sp.resumed
	if resumed {
		var err error
		if resumed, err = tournamentResumable(ctx, records, sp.id, after); err != nil {
			return nil, apiErr(http.StatusServiceUnavailable, "unavailable", "The tournament's events cannot be read now.")
		}
	}
	f := &follow{spec: sp}
	reset := false
	if !resumed {
		var err error
		if after, err = boards.TournamentLastEvent(ctx, records, sp.id); err != nil {
			return nil, apiErr(http.StatusServiceUnavailable, "unavailable", "The tournament's events cannot be read now.")
		}
		reset = true
	}
	f.head = fmt.Sprintf("event: %s\ndata: {\"tournament\":%d,\"last\":%d}\n\n", MuxFollowing, sp.id, after)
	if reset {
		f.head += fmt.Sprintf("event: %s\ndata: {\"id\":%d,\"last\":%d}\n\n", MuxTournamentReset, sp.id, after)
	}
	sub := ev.Follow(sp.id, after)
	f.c, f.close = sub.C, sub.Close
	f.next = func(ctx context.Context) (string, []boards.Event, error) {
		evs, err := sub.Next(ctx, records)
		if err != nil || len(evs) == 0 {
			return "", nil, err
		}
		return muxText(MuxTournament, evs), nil, nil
	}
	return f, nil
}

// gameStart is where a stream of a board goes on from: after, the number the client has, when
// resumed and resumable; else the board's last event, with reset that number for a client that
// named one (it reads the state once), -1 for a new stream.
func gameStart(ctx context.Context, records boards.DB, board, after int64, resumed bool) (from, reset int64, err error) {
	if resumed {
		ok, err := resumable(ctx, records, board, after)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			return after, -1, nil
		}
	}
	last, err := boards.LastEvent(ctx, records, board)
	if err != nil {
		return 0, 0, err
	}
	if resumed {
		return last, last, nil
	}
	return last, -1, nil
}

// muxText is the SSE events of a batch of a record's events, named name, without ids: each
// event's JSON says its number and what it belongs to (its board or tournament).
func muxText[E any](name string, evs []E) string {
	var b strings.Builder
	for _, e := range evs {
		data, _ := json.Marshal(e) // plain data: it always marshals
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data)
	}
	return b.String()
}

package boards

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the board games' Prometheus metrics. They are counted in the transaction that
// makes the change, so an update whose transaction is rolled back and handled again counts
// twice (rare: a failure of the database).
type Metrics struct {
	// Started and Finished count games by engine variant (and, finished, by how they ended:
	// rules, resignation, timeout, agreement).
	Started  *prometheus.CounterVec
	Finished *prometheus.CounterVec
	// Moves counts the moves played, by variant and by whom (human, bot); its rate is the moves
	// per second.
	Moves *prometheus.CounterVec
	// Think is the time of the AI's searches, by variant and level.
	Think *prometheus.HistogramVec
	// Render is the time to draw and write a board picture.
	Render prometheus.Histogram
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	return &Metrics{
		Started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_games_started_total", Help: "Board games started (both seats filled), by game.",
		}, []string{"game"}),
		Finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_games_finished_total", Help: "Board games finished, by game and how they ended.",
		}, []string{"game", "end"}),
		Moves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_moves_total", Help: "Board game moves played, by game and by whom (human, bot).",
		}, []string{"game", "by"}),
		Think: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "questbot_board_ai_think_seconds",
			Help:    "Time of the AI's searches for a move, by game and level.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 1.5, 2, 3, 5},
		}, []string{"game", "level"}),
		Render: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "questbot_board_render_seconds",
			Help:    "Time to draw a board picture and write it to its file.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2},
		}),
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.Started, m.Finished, m.Moves, m.Think, m.Render} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Register registers the board games' metrics with r.
func (b *Boards) Register(r prometheus.Registerer) error { return b.metrics.Register(r) }

package bot

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the transport's Prometheus metrics. Register them with Register; a Transport
// without metrics uses an unregistered set.
type Metrics struct {
	UpdatesReceived prometheus.Counter
	// UpdatesQuarantined counts the updates stored apart because they cannot be handled.
	UpdatesQuarantined prometheus.Counter
	// WebhookRefused counts the webhook requests refused for a missing or wrong secret.
	WebhookRefused prometheus.Counter
	UpdatesHandled *prometheus.CounterVec // by result: ok, error, gave_up
	HandleSeconds  prometheus.Histogram
	Sends          *prometheus.CounterVec // by method and outcome
	// SendsDetached counts the sends that took too long to hold their batch and went on alone.
	SendsDetached   prometheus.Counter
	Retries         prometheus.Counter
	FloodWaits      prometheus.Counter
	FloodWaitSecond prometheus.Counter
	outboxDepth     prometheus.Gauge
	outboxAge       prometheus.Gauge
	laneDepth       *prometheus.GaugeVec // by lane
	laneAge         *prometheus.GaugeVec // by lane
	superseded      prometheus.CounterFunc
	// supersededTotal reads the store's count of superseded rows (supersedeCounter).
	supersededTotal atomic.Pointer[func() int64]
}

// supersedeCounter is implemented by a Store that counts the pending outbox rows it dropped
// because a newer state of their object was queued (Request.State).
type supersedeCounter interface {
	SupersededTotal() int64
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	m := &Metrics{
		UpdatesReceived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_updates_received_total", Help: "Updates received from Telegram and stored in the inbox.",
		}),
		UpdatesQuarantined: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_updates_quarantined_total",
			Help: "Updates stored apart, unhandled, because they cannot be decoded or acknowledged (see inbox_quarantine).",
		}),
		WebhookRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_webhook_refused_total",
			Help: "Webhook requests refused (401) because their secret token was missing or wrong.",
		}),
		UpdatesHandled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_updates_handled_total", Help: "Updates handled, by result (ok, error, gave_up).",
		}, []string{"result"}),
		HandleSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "questbot_update_handle_seconds",
			Help:    "Time to handle an update: the transaction it was handled in, with the updates of other chats handled with it.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
		}),
		Sends: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_sends_total", Help: "Bot API requests from the outbox, by method and outcome (sent, retry, failed, blocked, abandoned, dropped, gave_way).",
		}, []string{"method", "outcome"}),
		SendsDetached: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_sends_detached_total",
			Help: "Sends that took too long to hold the other sends of their batch and went on alone.",
		}),
		Retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_send_retries_total", Help: "Outbox sends that failed transiently and will be retried.",
		}),
		FloodWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_flood_waits_total", Help: "429 Too Many Requests answers waited out.",
		}),
		FloodWaitSecond: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_flood_wait_seconds_total", Help: "Seconds of retry_after asked for by 429 answers.",
		}),
		outboxDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_outbox_depth", Help: "Pending outbox rows.",
		}),
		outboxAge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_outbox_oldest_seconds", Help: "Age of the oldest pending outbox row.",
		}),
		laneDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "questbot_outbox_lane_depth",
			Help: "Pending outbox rows by lane (conversation: the replies; updates: the states of boards changed elsewhere).",
		}, []string{"lane"}),
		laneAge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "questbot_outbox_lane_oldest_seconds",
			Help: "Age of the oldest pending outbox row by lane (conversation: the oldest reply waiting).",
		}, []string{"lane"}),
	}
	m.superseded = prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "questbot_outbox_superseded_total",
		Help: "Pending outbox rows dropped because a newer state of their object (a board message) was queued.",
	}, func() float64 {
		if f := m.supersededTotal.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	return m
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.UpdatesReceived, m.UpdatesQuarantined, m.WebhookRefused, m.UpdatesHandled, m.HandleSeconds,
		m.Sends, m.SendsDetached, m.Retries, m.FloodWaits, m.FloodWaitSecond, m.outboxDepth, m.outboxAge,
		m.laneDepth, m.laneAge, m.superseded} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// OutboxMetricsSpec is how often the outbox gauges are refreshed (Transport.OutboxMetrics).
const OutboxMetricsSpec = "@every 5s"

// OutboxMetrics refreshes the outbox gauges from the store; the bot runs it as a scheduled job
// (OutboxMetricsSpec).
func (t *Transport) OutboxMetrics(ctx context.Context) error {
	lanes, err := t.cfg.Store.OutboxStats(ctx)
	if err != nil {
		return err
	}
	var depth int64
	var oldest time.Duration
	for _, l := range Lanes {
		st := lanes[l]
		depth += st.Depth
		oldest = max(oldest, st.Oldest)
		t.m.laneDepth.WithLabelValues(l.String()).Set(float64(st.Depth))
		t.m.laneAge.WithLabelValues(l.String()).Set(st.Oldest.Seconds())
	}
	t.m.outboxDepth.Set(float64(depth))
	t.m.outboxAge.Set(oldest.Seconds())
	return nil
}

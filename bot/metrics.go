package bot

import (
	"context"

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
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	return &Metrics{
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
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.UpdatesReceived, m.UpdatesQuarantined, m.WebhookRefused, m.UpdatesHandled, m.HandleSeconds,
		m.Sends, m.SendsDetached, m.Retries, m.FloodWaits, m.FloodWaitSecond, m.outboxDepth, m.outboxAge} {
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
	depth, age, err := t.cfg.Store.OutboxStats(ctx)
	if err != nil {
		return err
	}
	t.m.outboxDepth.Set(float64(depth))
	t.m.outboxAge.Set(age.Seconds())
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/live"
	"github.com/llmbench/llmbench/transport/livemetrics"
)

// liveFlags are taken by the commands that measure (run, profile): stream
// each point's per-interval figures to time-series databases while the
// run goes (docs/live-metrics.md).
type liveFlags struct {
	LiveMetrics  []string      `name:"live-metrics" placeholder:"KIND=URL" help:"Stream per-interval request counts, errors, TTFT/ITL quantiles and throughput while the run goes, labelled by experiment and point: prometheus-rw=URL (Prometheus remote write) or otlp=URL (OTLP/HTTP); repeatable (docs/live-metrics.md)."`
	LiveInterval time.Duration `name:"live-metrics-interval" default:"5s" help:"How often --live-metrics sends a sample."`
}

func (f *liveFlags) liveOptions() *liveFlags { return f }

// liveExport is the exporter the command's --live-metrics ask for; nil
// when none is given. A malformed target is exit 2 naming the flag.
func liveExport(ctx context.Context, cmd any) (*liveExporter, error) {
	c, ok := cmd.(interface{ liveOptions() *liveFlags })
	if !ok || len(c.liveOptions().LiveMetrics) == 0 {
		return nil, nil
	}
	f := c.liveOptions()
	if f.LiveInterval <= 0 {
		return nil, invalid("--live-metrics-interval: got %s, want a duration > 0 such as 5s", f.LiveInterval)
	}
	targets := make([]livemetrics.Target, len(f.LiveMetrics))
	for i, s := range f.LiveMetrics {
		t, err := livemetrics.ParseTarget(s)
		if err != nil {
			return nil, invalid("--live-metrics: %v", err)
		}
		targets[i] = t
	}
	exp, err := livemetrics.New(ctx, targets)
	if err != nil {
		return nil, invalid("--live-metrics: %v", err)
	}
	return &liveExporter{exp: exp, interval: f.LiveInterval}, nil
}

// liveExporter is a command's --live-metrics: the exporter, how often it
// samples, and which failures were told already (a receiver that is down
// is said once per target, not every interval).
type liveExporter struct {
	exp      *livemetrics.Exporter
	interval time.Duration
	mu       sync.Mutex
	told     map[string]bool
}

// display wraps the progress display so each point is sampled and sent.
func (l *liveExporter) display(inner artifacts.Display, stderr io.Writer) artifacts.Display {
	return &live.Display{Inner: inner, Interval: l.interval,
		Push: func(ctx context.Context, experiment, point string, s metrics.LiveSample) error {
			return l.exp.Push(ctx, livemetrics.Labels{Experiment: experiment, Point: point}, s)
		},
		OnError: func(err error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.told == nil {
				l.told = map[string]bool{}
			}
			if !l.told[err.Error()] {
				l.told[err.Error()] = true
				fmt.Fprintf(stderr, "llmbench: --live-metrics: %v (the run goes on)\n", err)
			}
		}}
}

func (l *liveExporter) close() {
	if l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.exp.Close(ctx)
	}
}

package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Labels say whose sample it is: every series carries them.
type Labels struct{ Experiment, Point string }

// pusher sends one sample to one receiver.
type pusher interface {
	push(ctx context.Context, l Labels, s metrics.LiveSample) error
	close(ctx context.Context) error
}

// Exporter sends each sample to every target.
type Exporter struct {
	targets []Target
	pushers []pusher
}

// pushTimeout bounds one push, so a receiver that hangs delays the next
// sample at most this long and never the run.
const pushTimeout = 5 * time.Second

// New connects nothing yet: it prepares a client per target.
func New(ctx context.Context, targets []Target) (*Exporter, error) {
	e := &Exporter{targets: targets}
	client := &http.Client{Timeout: pushTimeout}
	for _, t := range targets {
		switch t.Kind {
		case PrometheusRW:
			e.pushers = append(e.pushers, &promRW{url: t.URL, client: client})
		case OTLP:
			o, err := newOTLP(ctx, t.URL)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t, err)
			}
			e.pushers = append(e.pushers, o)
		}
	}
	return e, nil
}

// Push sends s to every target; the error names each target that failed.
func (e *Exporter) Push(ctx context.Context, l Labels, s metrics.LiveSample) error {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	var errs []error
	for i, p := range e.pushers {
		if err := p.push(ctx, l, s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.targets[i], redactErr(err, e.targets[i])))
		}
	}
	return errors.Join(errs...)
}

// Close flushes and releases every target.
func (e *Exporter) Close(ctx context.Context) error {
	var errs []error
	for _, p := range e.pushers {
		errs = append(errs, p.close(ctx))
	}
	return errors.Join(errs...)
}

func (p *promRW) close(context.Context) error { return nil }

// redactErr keeps a target's credentials out of an error that quotes its
// URL (net/http's errors do).
func redactErr(err error, t Target) error {
	u, perr := url.Parse(t.URL)
	if perr != nil || u.User == nil {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), u.User.String()+"@", "redacted@"))
}

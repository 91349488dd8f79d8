// Package live samples a running point every interval (metrics.LiveWindow)
// and hands each sample on while the run goes: to --live-metrics'
// exporters, which the command wires in as Push. It is an
// artifacts.Display around the progress display, so every command that
// shows progress streams too, and it never touches what is measured.
package live

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

// Display is the artifacts.Display Inner with every point sampled each
// Interval and the samples given to Push, from one goroutine, in order;
// End sends the last, partial interval. Push errors go to OnError (the
// run goes on).
type Display struct {
	Inner interface {
		Start(title string, requests, warmup int) *engine.Progress
		End()
	}
	Interval time.Duration
	Push     func(ctx context.Context, experiment, point string, s metrics.LiveSample) error
	OnError  func(error)

	stop func()
}

// Start shows the point and samples it. title is "experiment/point" for a
// scenario's point; a profile's point (a bare label) is experiment
// "profile".
func (d *Display) Start(title string, requests, warmup int) *engine.Progress {
	d.End()
	p := d.Inner.Start(title, requests, warmup)
	exp, point, ok := strings.Cut(title, "/")
	if !ok {
		exp, point = "profile", title
	}
	w := &metrics.LiveWindow{}
	if prev := p.Tap; prev != nil { // the inner display's own view
		p.Tap = func(r *metrics.Record) { prev(r); w.Add(r) }
	} else {
		p.Tap = w.Add
	}
	d.stop = d.sample(exp, point, w)
	return p
}

// End stops sampling after a last sample, then ends the inner display.
func (d *Display) End() {
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
	d.Inner.End()
}

// sample pushes w's interval every Interval until the returned func is
// called, which pushes the last one and waits for it.
func (d *Display) sample(exp, point string, w *metrics.LiveWindow) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	start := time.Now()
	push := func() {
		if err := d.Push(context.Background(), exp, point, w.Take(start, time.Now())); err != nil && d.OnError != nil {
			d.OnError(err)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(d.Interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				push()
				return
			case <-t.C:
				push()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(stop); <-done }) }
}

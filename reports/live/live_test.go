package live

import (
	"context"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

type innerDisplay struct{ started, ended int }

func (d *innerDisplay) Start(string, int, int) *engine.Progress {
	d.started++
	p := &engine.Progress{}
	p.Tap = func(*metrics.Record) { d.started += 10 } // the inner view's own tap keeps working
	return p
}
func (d *innerDisplay) End() { d.ended++ }

// A point's requests reach Push labelled from the title; End sends the
// last interval. The interval is an hour, so End's is the only push.
func TestDisplayPushesEachPoint(t *testing.T) {
	inner := &innerDisplay{}
	type pushed struct {
		exp, point string
		s          metrics.LiveSample
	}
	var got []pushed
	d := &Display{Inner: inner, Interval: time.Hour,
		Push: func(_ context.Context, exp, point string, s metrics.LiveSample) error {
			got = append(got, pushed{exp, point, s})
			return nil
		}}
	p := d.Start("chat/concurrency8", 10, 0)
	p.Tap(&metrics.Record{Sent: 1, Chunks: []int64{2, 3}})
	p.Tap(&metrics.Record{Err: &metrics.Failure{Class: metrics.ErrHTTP}})
	d.Start("label-without-experiment", 10, 0) // ends the first point
	d.End()
	if len(got) != 2 || got[0].exp != "chat" || got[0].point != "concurrency8" || got[0].s.Requests != 2 || got[0].s.Errors != 1 ||
		got[1].exp != "profile" || got[1].point != "label-without-experiment" || got[1].s.Requests != 0 {
		t.Errorf("pushed %+v", got)
	}
	if inner.started != 22 || inner.ended != 3 {
		t.Errorf("inner display started %d (with taps), ended %d; want 22 and 3", inner.started, inner.ended)
	}
}

package metrics

import (
	"testing"
	"time"
)

// A window by hand: three requests, one failed; TTFTs 10 and 30 ms, mean
// chunk gaps 5 and 10 ms; over 2 s: 1.5 requests/s, 5 chunks / 2 s.
func TestLiveWindowByHand(t *testing.T) {
	var w LiveWindow
	w.Add(&Record{Sent: 0, Chunks: []int64{10e6, 15e6, 20e6}})
	w.Add(&Record{Sent: 0, Chunks: []int64{30e6, 40e6}})
	w.Add(&Record{Err: &Failure{Class: ErrHTTP}})
	t0 := time.Unix(100, 0)
	s := w.Take(t0, t0.Add(2*time.Second))
	if s.Requests != 3 || s.Errors != 1 || s.TotalRequests != 3 || s.RequestThroughput != 1.5 || s.OutputChunkThroughput != 2.5 {
		t.Errorf("sample %+v", s)
	}
	// numpy: p50 of [10, 30] ms is 20 ms, p99 is 10 + 0.99·20 = 29.8 ms.
	if s.TTFT == nil || s.TTFT.P50 != 0.02 || s.TTFT.P99 < 0.0297999 || s.TTFT.P99 > 0.0298001 || s.ITL.P50 != 0.0075 {
		t.Errorf("quantiles %+v %+v", s.TTFT, s.ITL)
	}
	next := w.Take(t0, t0.Add(3*time.Second))
	if next.Requests != 0 || next.TotalRequests != 3 || next.Interval != time.Second || next.TTFT != nil {
		t.Errorf("next interval %+v", next)
	}
}

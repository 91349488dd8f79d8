package metrics

import "testing"

// TestLoadMetrics works one open-loop run by hand:
//
//	A sent 100, done 300                       scheduled 90  → lag 10
//	B sent 200, no Done, last chunk 400        closed-loop (Scheduled 0)
//	C sent 300, failed, done 350               scheduled 280 → lag 20
//	D sent 400, no Done, no chunk: ends at 400 scheduled 400 → lag 0
//	E never sent (Sent 0), canceled            left out
//
// In flight: [100,200) 1, [200,300) 2, [300,350) 2, [350,400) 1, so the area
// is 100+200+100+50 = 450 = Σ(end − sent) = 200+200+50+0 over a span of
// 400 − 100 = 300: 1.5. Sends at 100..400: 3 intervals in 300 ns = 1e7/s.
func TestLoadMetrics(t *testing.T) {
	records := []Record{
		{Scheduled: 90, Sent: 100, Done: 300, Chunks: []int64{150, 250}, OutputTokens: 2},
		{Sent: 200, Chunks: []int64{250, 400}, OutputTokens: 2},
		{Scheduled: 280, Sent: 300, Done: 350, Err: &Failure{Class: ErrHTTP, Status: 500}},
		{Scheduled: 400, Sent: 400},
		{Scheduled: 500, Err: &Failure{Class: ErrCanceled}},
	}
	s := Summarize(records, Options{})
	same(t, "MeanConcurrency", s.MeanConcurrency, 1.5)
	same(t, "AchievedRequestRate", s.AchievedRequestRate, 1e7)
	if s.ScheduleLag == nil || s.ScheduleLag.Count != 3 {
		t.Fatalf("ScheduleLag = %+v, want 3 values", s.ScheduleLag)
	}
	// Lags [10, 20, 0]: avg 10, max 20.
	same(t, "lag avg", s.ScheduleLag.Avg, 10)
	same(t, "lag max", s.ScheduleLag.Max, 20)
}

func TestLoadMetricsDegenerate(t *testing.T) {
	cases := []struct {
		name    string
		records []Record
	}{
		{"empty", nil},
		// One send: no interval to rate; in flight over a zero span.
		{"one request", []Record{{Sent: 100}}},
		{"never sent", []Record{{Err: &Failure{Class: ErrCanceled}}, {Err: &Failure{Class: ErrCanceled}}}},
	}
	for _, c := range cases {
		s := Summarize(c.records, Options{})
		if s.AchievedRequestRate != 0 || s.MeanConcurrency != 0 || s.ScheduleLag != nil {
			t.Errorf("%s: rate %v, concurrency %v, lag %v; want 0, 0, nil",
				c.name, s.AchievedRequestRate, s.MeanConcurrency, s.ScheduleLag)
		}
	}
}

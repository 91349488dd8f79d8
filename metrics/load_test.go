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
	// From the schedule, only A qualifies: B is closed-loop, C failed, D
	// has no content. A's first chunk 150 − 90 = 60, last 250 − 90 = 160
	// (from the send: 50 and 150).
	for _, c := range []struct {
		name string
		d    *Distribution
		want float64
	}{
		{"ttft from schedule", s.TTFTFromSchedule, 60},
		{"latency from schedule", s.RequestLatencyFromSchedule, 160},
	} {
		if c.d == nil || c.d.Count != 1 {
			t.Fatalf("%s = %+v, want 1 value", c.name, c.d)
		}
		same(t, c.name, c.d.Avg, c.want)
	}
}

// TestFromScheduleGrows is the coordinated omission the from-schedule
// latencies expose: a server answering in 10 ns, one request at a time,
// planned every 5 ns. Request i is planned at 5i and sent when the one
// before it finishes, at 10i, first chunk at 10i+10: TTFT from the send
// is 10 for every request, from the schedule 10i+10 − 5i = 5i+10, so
// 10, 15, 20, 25: avg 17.5, max 25.
func TestFromScheduleGrows(t *testing.T) {
	var records []Record
	for i := int64(0); i < 4; i++ {
		records = append(records, Record{Scheduled: 1000 + 5*i, Sent: 1000 + 10*i,
			Chunks: []int64{1000 + 10*i + 10}, OutputTokens: 1})
	}
	s := Summarize(records, Options{})
	same(t, "ttft avg", s.TimeToFirstToken.Avg, 10)
	same(t, "ttft max", s.TimeToFirstToken.Max, 10)
	same(t, "ttft from schedule avg", s.TTFTFromSchedule.Avg, 17.5)
	same(t, "ttft from schedule max", s.TTFTFromSchedule.Max, 25)
	// One chunk: the last is the first.
	same(t, "latency from schedule max", s.RequestLatencyFromSchedule.Max, 25)
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
		if s.AchievedRequestRate != 0 || s.MeanConcurrency != 0 || s.ScheduleLag != nil ||
			s.TTFTFromSchedule != nil || s.RequestLatencyFromSchedule != nil {
			t.Errorf("%s: rate %v, concurrency %v, lag %v; want 0, 0, nil",
				c.name, s.AchievedRequestRate, s.MeanConcurrency, s.ScheduleLag)
		}
	}
}

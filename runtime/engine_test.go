package runtime

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
)

// sleepySender stands in for the network to test scheduling alone: each
// request "takes" d, and the sender tracks how many are in flight.
type sleepySender struct {
	clock    *transport.Clock
	d        time.Duration
	inFlight atomic.Int64
	peak     atomic.Int64
	mu       sync.Mutex
	levels   []int64 // in-flight count seen by each request as it started
}

func (s *sleepySender) Send(ctx context.Context, _ []byte, rec *metrics.Record) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	s.mu.Lock()
	s.levels = append(s.levels, n)
	s.mu.Unlock()
	rec.Sent = s.clock.Now()
	select {
	case <-time.After(s.d):
	case <-ctx.Done():
		rec.Err = &metrics.Failure{Class: metrics.ErrCanceled}
		return
	}
	rec.Chunks = []int64{s.clock.Now()}
	rec.Done = rec.Chunks[0]
}

func testRequests(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Body: []byte("{}"), Words: i}
	}
	return reqs
}

func TestClosedLoopKeepsExactlyNInFlight(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: 2 * time.Millisecond}
	p := Point{Load: Load{Concurrency: 4}, Stop: Stop{Requests: 40}, Warmup: 8}
	res := Run(context.Background(), p, s, clock, testRequests(3))
	if len(res.Records) != 40 {
		t.Fatalf("%d records, want 40 (warmup excluded)", len(res.Records))
	}
	if s.peak.Load() != 4 {
		t.Errorf("peak in flight %d, want 4", s.peak.Load())
	}
	for i, rec := range res.Records {
		if rec.ID != int64(i) || rec.Entry != (i+8)%3 {
			t.Errorf("record %d has ID %d entry %d, want ID %d entry %d", i, rec.ID, rec.Entry, i, (i+8)%3)
		}
	}
	if len(s.levels) != 48 {
		t.Errorf("%d requests sent, want 48 (8 warmup + 40)", len(s.levels))
	}
}

func TestClosedLoopStopsByDuration(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: 5 * time.Millisecond}
	p := Point{Load: Load{Concurrency: 2}, Stop: Stop{Duration: 100 * time.Millisecond}}
	res := Run(context.Background(), p, s, clock, testRequests(1))
	// 2 workers × 100 ms / 5 ms ≈ 40; scheduling noise only lowers it.
	if n := len(res.Records); n < 4 || n > 42 {
		t.Errorf("%d records in 100 ms at concurrency 2 of 5 ms requests, want at most ~40", n)
	}
}

func TestOpenLoopSendsOnSchedule(t *testing.T) {
	for _, arrival := range []Arrival{Constant, Poisson, Gamma} {
		t.Run(string(arrival), func(t *testing.T) {
			clock := transport.NewClock()
			s := &sleepySender{clock: clock, d: time.Millisecond}
			load := Load{Rate: 500, Arrival: arrival, Burstiness: 0.5}
			p := Point{Load: load, Stop: Stop{Requests: 200}, Warmup: 10, Seed: 7}
			res := Run(context.Background(), p, s, clock, testRequests(5))
			if len(res.Records) != 200 {
				t.Fatalf("%d records, want 200", len(res.Records))
			}
			// The schedule is the seeded one, offset by the run start.
			sched := newSchedule(load, 7)
			for range 10 {
				sched.next()
			}
			base := res.Records[0].Scheduled - int64(sched.next())
			for i, rec := range res.Records[1:] {
				if want := base + int64(sched.next()); rec.Scheduled != want {
					t.Fatalf("record %d scheduled at %d, want %d", i+1, rec.Scheduled, want)
				}
				if rec.Sent < rec.Scheduled {
					t.Fatalf("record %d sent %d ns before its planned time", i+1, rec.Scheduled-rec.Sent)
				}
			}
		})
	}
}

func TestOpenLoopMaxConcurrencyCapsAndRecordsLag(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: 20 * time.Millisecond}
	p := Point{Load: Load{Rate: 1000, Arrival: Constant, MaxConcurrency: 3}, Stop: Stop{Requests: 30}}
	res := Run(context.Background(), p, s, clock, testRequests(1))
	if s.peak.Load() > 3 {
		t.Errorf("peak in flight %d, want <= 3", s.peak.Load())
	}
	last := res.Records[len(res.Records)-1]
	// 30 requests of 20 ms through 3 slots take ≥ 180 ms; the plan wanted 29 ms.
	if lag := last.Sent - last.Scheduled; lag < int64(100*time.Millisecond) {
		t.Errorf("last request lag %v, want the cap's wait recorded (>= 100ms)", time.Duration(lag))
	}
}

func TestInterruptKeepsCompletedRecords(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(60*time.Millisecond, cancel)
	p := Point{Load: Load{Concurrency: 2}, Stop: Stop{Requests: 100000}, Grace: time.Second}
	res := Run(ctx, p, s, clock, testRequests(1))
	if !res.Interrupted || len(res.Records) == 0 || len(res.Records) > 1000 {
		t.Fatalf("interrupted=%v with %d records", res.Interrupted, len(res.Records))
	}
	for _, rec := range res.Records {
		if rec.Err != nil {
			t.Fatalf("a record failed: %+v (in-flight requests should finish within the grace)", rec.Err)
		}
	}
}

// The schedules' mean gap is 1/rate, and the seed fixes them.
func TestScheduleStatistics(t *testing.T) {
	for _, l := range []Load{
		{Rate: 100, Arrival: Poisson}, {Rate: 100, Arrival: Gamma, Burstiness: 0.25},
		{Rate: 100, Arrival: Gamma, Burstiness: 4}, {Rate: 100, Arrival: Constant},
	} {
		s := newSchedule(l, 1)
		const n = 200000
		var last time.Duration
		var sumSq float64
		for range n {
			at := s.next()
			g := (at - last).Seconds()
			sumSq += g * g
			last = at
		}
		mean := last.Seconds() / n
		if math.Abs(mean-0.01) > 0.0002 {
			t.Errorf("%s/%g: mean gap %.5f s, want 0.01", l.Arrival, l.Burstiness, mean)
		}
		// Coefficient of variation: 0 constant, 1 Poisson, 1/sqrt(k) gamma.
		cv := math.Sqrt(sumSq/n-mean*mean) / mean
		want := map[Arrival]float64{Constant: 0, Poisson: 1, Gamma: 1 / math.Sqrt(l.Burstiness)}[l.Arrival]
		if math.Abs(cv-want) > 0.03*math.Max(want, 1) {
			t.Errorf("%s/%g: coefficient of variation %.3f, want %.3f", l.Arrival, l.Burstiness, cv, want)
		}
		a, b := newSchedule(l, 9), newSchedule(l, 9)
		for range 100 {
			if a.next() != b.next() {
				t.Fatalf("%s: same seed, different schedules", l.Arrival)
			}
		}
	}
}

func TestCountTokens(t *testing.T) {
	reqs := []Request{{Text: "a b c", Words: 3}}
	recs := []metrics.Record{
		{Chunks: []int64{1, 2}, Usage: metrics.Usage{PromptTokens: 9, CompletionTokens: 4, Reported: true}},
		{Chunks: []int64{1, 2, 3}},
	}
	c := CountTokens(recs, reqs, ByUsage, nil)
	if recs[0].InputTokens != 9 || recs[0].OutputTokens != 4 || recs[1].InputTokens != 3 || recs[1].OutputTokens != 3 {
		t.Errorf("usage counts: %+v", recs)
	}
	if c.Fallbacks != 1 || c.String() != "usage (1 requests without usage counted by chunks)" {
		t.Errorf("counting = %+v %q", c, c.String())
	}
	CountTokens(recs, reqs, ByChunks, nil)
	if recs[0].InputTokens != 3 || recs[0].OutputTokens != 2 {
		t.Errorf("chunk counts: %+v", recs[0])
	}
	// A zero-token answer is one empty chunk: no output token.
	zero := []metrics.Record{{Chunks: []int64{5}, ChunkEnds: []int32{0}}, {Chunks: []int64{1, 2, 3}, ChunkEnds: []int32{2, 2, 4}}}
	CountTokens(zero, reqs, ByChunks, nil)
	if zero[0].OutputTokens != 0 || zero[1].OutputTokens != 2 {
		t.Errorf("chunks with text: %d and %d, want 0 and 2", zero[0].OutputTokens, zero[1].OutputTokens)
	}
	if m, err := ParseCountMode("auto", false); err != nil || m != ByUsage {
		t.Errorf("auto without tokenizer = %v, %v", m, err)
	}
	if _, err := ParseCountMode("tokenizer", false); err == nil {
		t.Error("tokenizer mode without a tokenizer accepted")
	}
}

func TestPointValidate(t *testing.T) {
	bad := []Point{
		{Load: Load{}, Stop: Stop{Requests: 1}},
		{Load: Load{Concurrency: 1, Rate: 1}, Stop: Stop{Requests: 1}},
		{Load: Load{Concurrency: 1}, Stop: Stop{}},
		{Load: Load{Concurrency: 1}, Stop: Stop{Requests: 1, Duration: time.Second}},
		{Load: Load{Rate: 1, Arrival: Gamma}, Stop: Stop{Requests: 1}},
		{Load: Load{Concurrency: 1}, Stop: Stop{Requests: 1}, Warmup: -1},
	}
	for i, p := range bad {
		if p.Validate() == nil {
			t.Errorf("point %d accepted: %+v", i, p)
		}
	}
	if err := (Point{Load: Load{Concurrency: 1}, Stop: Stop{Requests: 1}}).Validate(); err != nil {
		t.Errorf("valid point rejected: %v", err)
	}
}

func TestReplaySendsAtTimestamps(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: time.Millisecond}
	reqs := testRequests(6)
	for i := range reqs {
		reqs[i].At = time.Duration(i*i) * 10 * time.Millisecond // 0, 10, 40, 90, 160, 250 ms
	}
	p := Point{Load: Load{ReplaySpeed: 2}, Warmup: 1}
	res := Run(context.Background(), p, s, clock, reqs)
	if len(res.Records) != 5 {
		t.Fatalf("%d records, want 5 (6 entries, 1 warmup)", len(res.Records))
	}
	base := res.Records[0].Scheduled - int64(5*time.Millisecond) // entry 1 at 10 ms / speed 2
	for i, rec := range res.Records {
		want := base + int64(reqs[i+1].At)/2
		if rec.Scheduled != want || rec.Entry != i+1 {
			t.Errorf("record %d: entry %d scheduled at +%v, want entry %d at +%v", i, rec.Entry,
				time.Duration(rec.Scheduled-base), i+1, time.Duration(want-base))
		}
		if rec.Sent < rec.Scheduled {
			t.Errorf("record %d sent before its timestamp", i)
		}
	}
}

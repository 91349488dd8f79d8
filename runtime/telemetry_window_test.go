package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// steppedExporter is a vLLM /metrics page whose request-latency
// histogram counts exactly the requests the test says have finished. It
// reads its count when a scrape arrives; a held scrape then waits for
// the test before answering, as a busy server renders its page before a
// request that finishes meanwhile.
type steppedExporter struct {
	mu      sync.Mutex
	n, ttft int
	hold    bool
	held    chan struct{}
	release chan struct{}
}

func newSteppedExporter(t *testing.T) (*steppedExporter, string) {
	e := &steppedExporter{held: make(chan struct{}, 1), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e.mu.Lock()
		n, ttft, hold := e.n, e.ttft, e.hold
		e.hold = false
		e.mu.Unlock()
		if hold {
			e.held <- struct{}{}
			<-e.release
		}
		fmt.Fprintf(w, "# TYPE vllm:e2e_request_latency_seconds histogram\n"+
			"vllm:e2e_request_latency_seconds_bucket{le=\"1.0\",model_name=\"m\"} %d\n"+
			"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n"+
			"vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} %g\n"+
			"vllm:e2e_request_latency_seconds_count{model_name=\"m\"} %d\n"+
			"# TYPE vllm:time_to_first_token_seconds histogram\n"+
			"vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n"+
			"vllm:time_to_first_token_seconds_sum{model_name=\"m\"} %g\n"+
			"vllm:time_to_first_token_seconds_count{model_name=\"m\"} %d\n", n, n, 0.5*float64(n), n, ttft, 0.01*float64(ttft), ttft)
	}))
	t.Cleanup(srv.Close)
	return e, srv.URL + "/metrics"
}

// finished makes the server count k more requests, first tokens and
// ends; firstTokens only their first tokens.
func (e *steppedExporter) finished(k int) {
	e.mu.Lock()
	e.n += k
	e.ttft += k
	e.mu.Unlock()
}

func (e *steppedExporter) firstTokens(k int) {
	e.mu.Lock()
	e.ttft += k
	e.mu.Unlock()
}

// holdNext makes the next scrape wait, after reading the count, until
// the test releases it.
func (e *steppedExporter) holdNext() {
	e.mu.Lock()
	e.hold = true
	e.mu.Unlock()
}

// windowRun drives a telemetry run as Execute does, with scrapes only
// when asked for (an hour's interval): warm-up finished at the server
// and at the client, measured requests likewise, and the scrape that is
// in flight when the last response comes. Nothing depends on timing.
type windowRun struct {
	t     *testing.T
	clock *transport.Clock
	e     *steppedExporter
	tel   *telemetryRun
	take  func(metrics.Record)
}

func startWindowRun(t *testing.T, warmups int) *windowRun {
	e, u := newSteppedExporter(t)
	clock := transport.NewClock()
	tel := startTelemetry(context.Background(), TelemetryPlan{URLs: []string{u}, Interval: time.Hour}, nil, clock, warmups)
	if tel == nil || tel.scraper == nil {
		t.Fatalf("no scraper: %+v", tel)
	}
	return &windowRun{t: t, clock: clock, e: e, tel: tel, take: tel.observing(func(metrics.Record) {})}
}

// measured finishes k measured requests, server first, as it is.
func (r *windowRun) measured(k int) {
	r.e.finished(k)
	for range k {
		r.take(metrics.Record{Done: r.clock.Now()})
	}
}

// warmedUp finishes the warm-up's k requests and waits for the scrape
// their last one asks for.
func (r *windowRun) warmedUp(k int) {
	r.e.finished(k)
	var end int64
	for range k {
		end = r.clock.Now()
		r.tel.warmupDone(end)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard, not a timing assertion
	for !r.tel.scrapedAfter(1, end+int64(serverSettle)) {
		if time.Now().After(deadline) {
			r.t.Fatal("no scrape after the warm-up")
		}
		time.Sleep(time.Millisecond)
	}
}

// lastWithScrapeInFlight finishes the point's last request while a
// scrape that read the count before it is still on its way back.
func (r *windowRun) lastWithScrapeInFlight() int64 {
	r.e.holdNext()
	r.tel.scraper.ScrapeNow()
	<-r.e.held
	r.measured(1)
	end := r.clock.Now()
	r.e.release <- struct{}{}
	return end
}

// The server's window starts with a scrape sent after the warm-up's last
// response and ends with one sent after the point's last response:
// warm-up 2 + 20 measured, with the warm-up still running when the first
// measured request is sent and a scrape in flight when the last response
// comes, is 20 requests on the server side too (issue 28 item 1: the
// server counted 21-22, and missed the last request in 4 of 15 runs).
func TestServerWindowIsTheMeasuredRequests(t *testing.T) {
	r := startWindowRun(t, 2)
	start := r.clock.Now() // the first measured send, before the warm-up ends
	r.warmedUp(2)
	r.measured(19)
	end := r.lastWithScrapeInFlight()
	pt := r.tel.finish(context.Background(), metrics.TelemetryWindow{Start: start, End: end})
	sw := pt.ServerWindow
	if sw == nil || sw.ServerCount != 20 || sw.ClientCount != 20 || sw.ClientInWindow != 20 {
		t.Fatalf("server window %+v; want 20 requests on both sides", sw)
	}
	if l := pt.Summary.Server.Latency(metrics.LatencyRequestLatency); l == nil || l.Count != 20 {
		t.Errorf("server request latency %+v; want 20 requests", l)
	}
	if sw.Start <= sw.WarmupEnd || sw.End < end {
		t.Errorf("window %d..%d: want it to start after the warm-up's end %d and end after the last response %d", sw.Start, sw.End, sw.WarmupEnd, end)
	}
	for _, w := range pt.AllWarnings() {
		if strings.Contains(w, "counted") {
			t.Errorf("a warning where the counts agree: %s", w)
		}
	}
}

// Measured requests that finish while the warm-up is still running are
// outside the server's window (the warm-up's can't be told from them
// there); the count then differs, and the warning names both counts and
// why.
func TestServerWindowMismatchIsAWarning(t *testing.T) {
	r := startWindowRun(t, 2)
	start := r.clock.Now()
	r.measured(3) // before the warm-up's last response
	r.warmedUp(2)
	r.measured(16)
	end := r.lastWithScrapeInFlight()
	pt := r.tel.finish(context.Background(), metrics.TelemetryWindow{Start: start, End: end})
	sw := pt.ServerWindow
	if sw == nil || sw.ServerCount != 17 || sw.ClientCount != 20 || sw.ClientInWindow != 17 {
		t.Fatalf("server window %+v; want 17 of the client's 20 on the server side", sw)
	}
	want := "telemetry: the server counted 17 requests in its window, the client 20 (3 of them finished"
	found := false
	for _, w := range pt.AllWarnings() {
		found = found || strings.HasPrefix(w, want)
	}
	if !found {
		t.Errorf("warnings %q; want one starting %q", pt.AllWarnings(), want)
	}
}

// The server window survives the round trip through telemetry.parquet's
// account: a rebuilt point reduces the server's figures over it again.
func TestServerWindowRebuilt(t *testing.T) {
	r := startWindowRun(t, 2)
	start := r.clock.Now()
	r.warmedUp(2)
	r.measured(19)
	end := r.lastWithScrapeInFlight()
	pt := r.tel.finish(context.Background(), metrics.TelemetryWindow{Start: start, End: end})
	account, err := pt.Account()
	if err != nil {
		t.Fatal(err)
	}
	back, err := RebuildTelemetry(pt.Samples, account, &metrics.Summary{Start: start, End: end}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if l := back.Summary.Server.Latency(metrics.LatencyRequestLatency); l == nil || l.Count != 20 || *back.ServerWindow != *pt.ServerWindow {
		t.Errorf("rebuilt %+v, %+v; want 20 requests in %+v", l, back.ServerWindow, pt.ServerWindow)
	}
}

// Scraping is a choice: a negative interval (--telemetry-interval off)
// plans nothing, not even the endpoint's own /metrics, and
// ServerMetricsOff leaves only that one out (issue 28 item 5).
func TestTelemetryPlanOff(t *testing.T) {
	e := plan.Experiment{Telemetry: []string{"http://gpu:9400/metrics"}, TelemetryInterval: -1}
	if p := telemetryPlan(&e); len(p.URLs) != 0 || p.Discover {
		t.Errorf("interval off: plan %+v, want nothing", p)
	}
	e.TelemetryInterval, e.ServerMetricsOff = 0, true
	if p := telemetryPlan(&e); len(p.URLs) != 1 || p.Discover {
		t.Errorf("server metrics off: plan %+v, want the URL and no discovery", p)
	}
	e.ServerMetricsOff = false
	if p := telemetryPlan(&e); !p.Discover {
		t.Errorf("default: plan %+v, want the endpoint's own /metrics tried", p)
	}
	if startTelemetry(context.Background(), TelemetryPlan{}, []string{"http://127.0.0.1:1"}, transport.NewClock(), 0) != nil {
		t.Error("an empty plan scraped")
	}
}

// A measured request whose first token came while the warm-up was still
// running (an open loop's schedule overlaps them) and which finished
// inside the window is in the server's request latency but not in its
// TTFT: the warning says so, naming both counts.
func TestServerWindowTTFTCountedBeforeTheStart(t *testing.T) {
	r := startWindowRun(t, 2)
	start := r.clock.Now()
	r.e.mu.Lock()
	r.e.ttft++ // the measured request's first token; the warm-up's finish below
	r.e.mu.Unlock()
	first := r.clock.Now()
	r.warmedUp(2)
	r.e.mu.Lock()
	r.e.n++ // that request ends inside the window
	r.e.mu.Unlock()
	r.take(metrics.Record{Chunks: []int64{first}, Done: r.clock.Now()})
	r.measured(18)
	end := r.lastWithScrapeInFlight()
	pt := r.tel.finish(context.Background(), metrics.TelemetryWindow{Start: start, End: end})
	sw := pt.ServerWindow
	if sw == nil || sw.ServerCount != 20 || sw.ServerTTFTCount != 19 || sw.ClientTTFTInWindow != 19 {
		t.Fatalf("server window %+v; want 20 requests, 19 first tokens on both sides", sw)
	}
	want := "telemetry: the server's TTFT histogram counted 19 first tokens in its window, the client 20 requests (1 of them"
	found := false
	for _, w := range pt.AllWarnings() {
		found = found || strings.HasPrefix(w, want)
	}
	if !found {
		t.Errorf("warnings %q; want one starting %q", pt.AllWarnings(), want)
	}
}

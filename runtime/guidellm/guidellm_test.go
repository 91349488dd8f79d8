package guidellm

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// near reports whether a duration in ns is within 1 µs of want ms (the
// file's epoch seconds carry about 0.2 µs).
func near(ns int64, ms float64) bool { return math.Abs(float64(ns)/1e6-ms) < 1e-3 }

// The fixture (testdata/make.sh) read back: two benchmarks, concurrency 1
// and 4, of 12 requests; the second's first request by hand from the file
// — first token 41.9378 ms after its start, last 114.4065 ms after the
// first over 12 iterations, end 156.6715 ms after its start, 26 tokens
// in and 12 out — and its one failure, a 500, sent tenth.
func TestReadFixture(t *testing.T) {
	f, err := os.Open("testdata/benchmarks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "llmbench-sim" || res.API != "/v1/chat/completions" || !res.Stream || len(res.Benchmarks) != 2 {
		t.Fatalf("%+v", res)
	}
	b1, b2 := res.Benchmarks[0], res.Benchmarks[1]
	if b1.Strategy != "concurrent" || b1.Concurrency != 1 || b2.Concurrency != 4 || len(b1.Records) != 12 || len(b2.Records) != 12 || b2.Total != 12 {
		t.Fatalf("benchmarks %+v / %+v", b1, b2)
	}
	r := b2.Records[0]
	if !near(r.Chunks[0]-r.Sent, 41.9378) || !near(r.Chunks[11]-r.Chunks[0], 114.4065) || len(r.Chunks) != 12 ||
		!near(r.Done-r.Sent, 156.6715) || r.InputTokens != 26 || r.OutputTokens != 12 || r.Err != nil || r.Output == "" {
		t.Errorf("first request %+v", r)
	}
	gap := r.Chunks[1] - r.Chunks[0]
	if d := r.Chunks[11] - r.Chunks[10]; d < gap-1 || d > gap+1 {
		t.Errorf("chunk gaps %d and %d: want them spread evenly", gap, d)
	}
	failed := b2.Records[9]
	if failed.Err == nil || failed.Err.Class != metrics.ErrHTTP || failed.Err.Status != 500 || failed.InputTokens != 32 {
		t.Errorf("the failed request %+v %+v", failed, failed.Err)
	}
	for i, r := range b2.Records {
		if r.ID != int64(i) || (i > 0 && r.Sent < b2.Records[i-1].Sent) {
			t.Fatalf("records not in send order at %d", i)
		}
	}
}

// What is not a GuideLLM report, or is damaged, is refused saying why.
func TestReadRefuses(t *testing.T) {
	req := func(timings string) string {
		return `{"metadata": {"version": 2, "guidellm_version": "0.8.1"}, "benchmarks": [{"config": {"strategy": {"type_": "synchronous"}},
		  "requests": {"successful": [{"info": {"status": "completed", "timings": {` + timings + `}}}]}}]}`
	}
	for _, c := range []struct{ doc, want string }{
		{`[1]`, "not a GuideLLM report"},
		{`{"metadata": {"version": 1}, "benchmarks": [{}]}`, "report version 1"},
		{req(``), "benchmark 1: request 1: no request_start"},
		{req(`"request_start": -5`), "not an epoch time"},
		{req(`"request_start": 10, "request_end": 9`), "before its start"},
		{req(`"request_start": 10, "request_end": 12, "first_token_iteration": 11, "last_token_iteration": 10.5, "token_iterations": 3`), "before the first"},
	} {
		_, err := Read(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	if _, err := Read(strings.NewReader(`{"metadata": {"version": 2}, "benchmarks": []}`)); !errors.Is(err, ErrNoBenchmarks) {
		t.Errorf("no benchmarks: %v", err)
	}
}

// A synchronous benchmark is concurrency 1; a request without token
// times is one chunk at its end; an incomplete one is canceled; a rate
// benchmark keeps its rate.
func TestReadShapes(t *testing.T) {
	doc := `{"metadata": {"version": 2, "guidellm_version": "0.8.1"}, "benchmarks": [
	  {"config": {"strategy": {"type_": "synchronous"}}, "requests": {"successful": [{"output_tokens": 3, "info": {"status": "completed", "timings": {"request_start": 10, "request_end": 10.5}}}],
	   "incomplete": [{"info": {"status": "incomplete", "timings": {"request_start": 11}}}]}},
	  {"config": {"strategy": {"type_": "poisson", "rate": 2.5, "max_concurrency": 8}}, "requests": {"errored": [{"info": {"status": "errored", "error": "ReadTimeout('')", "timings": {"request_start": 10}}}]}}]}`
	if !Sniff([]byte(doc)) || Sniff([]byte(`{"benchmarks": []}`)) {
		t.Error("Sniff")
	}
	res, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	sync, poisson := res.Benchmarks[0], res.Benchmarks[1]
	if sync.Concurrency != 1 || len(sync.Records[0].Chunks) != 1 || sync.Records[0].Chunks[0] != 10_500_000_000 || sync.Records[1].Err.Class != metrics.ErrCanceled {
		t.Errorf("synchronous %+v", sync)
	}
	if poisson.Rate != 2.5 || poisson.Concurrency != 8 || poisson.Records[0].Err.Class != metrics.ErrServer || poisson.Records[0].Err.Message != "ReadTimeout('')" {
		t.Errorf("poisson %+v", poisson)
	}
}

package aiperf

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func readFixture(t *testing.T) *Result {
	t.Helper()
	jl, err := os.Open("testdata/aiperf/profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer jl.Close()
	sum, err := os.Open("testdata/aiperf/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	defer sum.Close()
	res, err := Read(jl, sum)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The fixture (testdata/make.sh) read back: 3 warm-up records left out, 24
// profiling ones at 8 req/s, the first by hand from the file — sent at
// 1796494528329789688 ns, TTFT 23.509868 ms, first gaps 9.376593 and
// 8.032866 ms, done 119744591 ns later, 32 tokens in, 12 out — and 9
// failures: the 500s are http failures with their status, the cut
// streams resets.
func TestReadFixture(t *testing.T) {
	res := readFixture(t)
	if res.Model != "llmbench-sim" || res.EndpointType != "chat" || !res.Streaming || res.RequestRate != 8 ||
		res.Concurrency != 0 || len(res.Records) != 24 || res.WarmupRequests != 3 {
		t.Fatalf("%+v", res)
	}
	r := res.Records[0]
	if r.Sent != 1796494528329789688 || r.Chunks[0]-r.Sent != 23509868 || r.Chunks[1]-r.Chunks[0] != 9376593 ||
		r.Chunks[2]-r.Chunks[1] != 8032866 || len(r.Chunks) != 12 || r.Done-r.Sent != 119744591 ||
		r.InputTokens != 32 || r.OutputTokens != 12 || r.Err != nil {
		t.Errorf("first request %+v", r)
	}
	classes := map[metrics.ErrorClass]int{}
	for _, r := range res.Records {
		if r.Err != nil {
			classes[r.Err.Class]++
		}
	}
	if classes[metrics.ErrHTTP] != 2 || classes[metrics.ErrReset] != 7 || len(classes) != 2 {
		t.Errorf("failures by class %v, want 2 http and 7 reset", classes)
	}
	if f := res.Records[16].Err; f == nil || f.Status != 500 || !strings.Contains(f.Message, "injected server error") {
		t.Errorf("request 16's failure %+v", f)
	}
}

// What is not an AIPerf export, or is damaged, is refused saying where.
func TestReadRefuses(t *testing.T) {
	ok := `{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 10, "request_end_ns": 20}, "metrics": {}}`
	for _, c := range []struct{ doc, want string }{
		{ok + "\n{", "line 2: not an AIPerf record"},
		{`{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 30, "request_end_ns": 20}}`, "line 1: request_end_ns 20 before request_start_ns 30"},
		{`{"metadata": {"request_start_ns": 1, "request_end_ns": 2}, "metrics": {"time_to_first_token": {"value": -1, "unit": "ms"}}}`, "not a duration"},
		{`{"metadata": {"request_start_ns": 1, "request_end_ns": 2}, "metrics": {"time_to_first_token": {"value": 1, "unit": "s"}}}`, "want a value in ms"},
		{`{"metadata": {"request_start_ns": 1, "request_end_ns": 2}, "metrics": {"time_to_first_token": {"value": 1, "unit": "ms"}, "inter_chunk_latency": {"value": [1, "x"], "unit": "ms"}}}`, "inter_chunk_latency"},
	} {
		_, err := Read(strings.NewReader(c.doc), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	if _, err := Read(strings.NewReader(`{"metadata": {"benchmark_phase": "warmup", "request_start_ns": 1}}`), nil); !errors.Is(err, ErrNoRequests) {
		t.Errorf("only warm-up: %v", err)
	}
	if _, err := Read(strings.NewReader(ok), strings.NewReader("[")); err == nil || !strings.Contains(err.Error(), "profile_export_aiperf.json") {
		t.Errorf("bad summary: %v", err)
	}
}

// Without a summary a non-streamed request is one chunk at its end, and
// streaming is told from the records.
func TestReadWithoutSummary(t *testing.T) {
	res, err := Read(strings.NewReader(`{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 10, "request_end_ns": 30}, "metrics": {"output_sequence_length": {"value": 4, "unit": "tokens"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Records[0]; res.Streaming || len(r.Chunks) != 1 || r.Chunks[0] != 30 || r.OutputTokens != 4 {
		t.Errorf("%+v %+v", res, r)
	}
	if !Sniff([]byte(`{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 10}}`)) || Sniff([]byte(`{"metadata": {}}`)) || Sniff([]byte(`{"backend": "vllm"}`)) {
		t.Error("Sniff")
	}
}

package views

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/internal/golden"
)

// ms is a time in ms after an origin of 1 s (a Sent of 0 means "never sent").
func ms(v int64) int64 { return (1000 + v) * 1_000_000 }

// fixture is metrics' hand-worked view run (metrics/views_test.go): three
// completed requests (TTFT 10, 20, 20 ms; to the last chunk 40, 60, 20 ms;
// OSL 4, 3, 1), one HTTP 500 and one canceled, over 80 ms of wall time.
func fixture() metrics.Summary {
	c := func(v ...int64) []int64 {
		for i := range v {
			v[i] = ms(v[i])
		}
		return v
	}
	return metrics.Summarize([]metrics.Record{
		{Sent: ms(0), Chunks: c(10, 20, 30, 40), Done: ms(45), InputTokens: 10, OutputTokens: 4},
		{Sent: ms(5), Chunks: c(25, 65), Done: ms(70), InputTokens: 20, OutputTokens: 3},
		{Sent: ms(10), Chunks: c(30), Done: ms(30), InputTokens: 5, OutputTokens: 1},
		{Sent: ms(15), Done: ms(50), InputTokens: 8, Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 500, Message: "boom"}},
		{Sent: ms(20), Done: ms(80), InputTokens: 7, Err: &metrics.Failure{Class: metrics.ErrCanceled, Message: "interrupted"}},
	}, metrics.Options{})
}

func fixtureRun() genaiperf.Run {
	r := genaiperf.DefaultRun("org/m")
	r.Streaming = true
	r.Stimulus = genaiperf.Stimulus{Concurrency: 4}
	return r
}

// TestViewTablesGolden: each tool's console layout of the fixture. The
// numbers are metrics' hand-worked ones (vLLM: mean TPOT 15.00 ms, p99
// ITL 39.10 ms, 37.50 req/s; GuideLLM: TPOT median 10.0 ms, concurrency
// mean 2.8; LLMPerf: ITL mean 0.02 s; AIPerf: ITL avg 15.00 ms).
func TestViewTablesGolden(t *testing.T) {
	s, r := fixture(), fixtureRun()
	for _, name := range Names[1:] {
		var b bytes.Buffer
		if err := WriteConsole(&b, name, &r, &s); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name+".txt", b.Bytes())
	}
}

// TestViewTableLines pins the lines the golden files' numbers come from,
// so a regenerated golden file cannot drift from the hand-worked values.
func TestViewTableLines(t *testing.T) {
	s, r := fixture(), fixtureRun()
	for _, c := range []struct{ view, line string }{
		{VLLM, "Mean TPOT (ms):                          15.00     "},
		{VLLM, "P99 ITL (ms):                            39.10     "},
		{VLLM, "Request throughput (req/s):              37.50     "},
		{VLLM, "Maximum request concurrency:             4         "},
		{VLLM, "---------------Inter-token Latency----------------"},
		{GuideLLM, "| concurrent | 0.0             | 0.1             | 20.0 | 20.0 | 20.0  | 20.0  | 10.0 | 20.0 | 10.0 | 20.0 |"},
		{LLMPerf, "    mean = 0.02"},
		{LLMPerf, "Error Code Frequency\n{-1: 1, 500: 1}"},
		{LLMPerf, "Completed Requests Per Minute: 2250.0"},
		{AIPerf, "│             Inter Token Latency (ms) │  15.00 │ 10.00 │  20.00 │ 19.90 │ 19.00 │ 15.00 │  5.00 │"},
	} {
		var b bytes.Buffer
		if err := WriteConsole(&b, c.view, &r, &s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.line) {
			t.Errorf("%s view lacks %q:\n%s", c.view, c.line, b.String())
		}
	}
}

// TestCheck: an unknown view is refused naming the flag and every view.
func TestCheck(t *testing.T) {
	for _, n := range Names {
		if err := Check(n); err != nil {
			t.Errorf("Check(%q) = %v", n, err)
		}
	}
	err := Check("vllm-bench")
	if err == nil || !strings.Contains(err.Error(), "--view") || !strings.Contains(err.Error(), "genai-perf, vllm, guidellm, llmperf, aiperf") {
		t.Errorf("Check(unknown) = %v", err)
	}
}

// TestBlockJSON: the views block keys each view as its tool's result file
// does, in the tool's units.
func TestBlockJSON(t *testing.T) {
	s := fixture()
	b, err := json.Marshal(Block(&s))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(Names) {
		t.Errorf("views %v, want %v", keys(got), Names)
	}
	for _, c := range []struct {
		view, key string
		want      float64
	}{
		{VLLM, "mean_tpot_ms", 15},
		{VLLM, "duration", 0.08},
		{VLLM, "completed", 3},
		{LLMPerf, "num_requests_started", 5},
		{LLMPerf, "error_rate", 0.4},
	} {
		if v, ok := got[c.view][c.key].(float64); !ok || !close(v, c.want) {
			t.Errorf("%s.%s = %v, want %v", c.view, c.key, got[c.view][c.key], c.want)
		}
	}
	tpot := got[GuideLLM]["time_per_output_token_ms"].(map[string]any)["successful"].(map[string]any)
	if tpot["mean"] != 15.0 || tpot["median"] != 10.0 || tpot["count"] != 8.0 {
		t.Errorf("guidellm TPOT = %v; want mean 15, median 10, count 8", tpot)
	}
	itl := got[AIPerf]["inter_token_latency"].(map[string]any)
	if itl["unit"] != "ms" || !close(itl["avg"].(float64), 15) {
		t.Errorf("aiperf ITL = %v; want 15 ms", itl)
	}
	if ttft := got[GenAIPerf]["time_to_first_token"].(map[string]any); !close(ttft["avg"].(float64), 50.0/3) {
		t.Errorf("genai-perf TTFT = %v", ttft)
	}
}

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The GenAI-Perf view, and AIPerf's records of the metrics both tools
// define, name catalogue metrics by their GenAI-Perf names; AIPerf's own
// records (error_request_count, benchmark_duration, goodput) are its
// tool's, with no llmbench metric of that name to be confused with.
func TestViewsNameOnlyCatalogueMetrics(t *testing.T) {
	s := fixture()
	aiperfOwn := map[string]bool{"error_request_count": true, "benchmark_duration": true, "goodput": true}
	for view, o := range map[string]*Object{GenAIPerf: genAIPerfJSON(&s), AIPerf: aiperfJSON(&s.Views.AIPerf)} {
		for _, key := range o.keys {
			m, ok := metrics.Lookup(key)
			switch {
			case view == AIPerf && aiperfOwn[key]:
				if ok {
					t.Errorf("AIPerf's own %q is also a catalogue metric's name", key)
				}
			case !ok:
				t.Errorf("%s view names %q, which the catalogue lacks", view, key)
			case m.GenAIPerfName() != key:
				t.Errorf("%s view names %s %q, GenAI-Perf's name is %q", view, m.Name, key, m.GenAIPerfName())
			}
		}
	}
}

package metrics

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// exampleRecords are the two requests of GenAI-Perf's example
// profile_export.json (shared/reference/genai-perf-examples), as transport
// would record them: the role-only 2 ms response of request 1 and both
// [DONE] responses carry no content and are not chunks. ISL and OSL are
// what GenAI-Perf's whitespace tokenizer counted: "a b c" 3, "a b c d" 4,
// "I like dogs" 3, "I don't cook food at home" 6.
func exampleRecords() []Record {
	return []Record{
		{ID: 0, Sent: 1_000_000, Chunks: []int64{5_000_000, 8_000_000, 12_000_000}, Done: 13_000_000,
			Output: "I like dogs", InputTokens: 3, OutputTokens: 3},
		{ID: 1, Sent: 2_000_000, Chunks: []int64{7_000_000, 11_000_000, 15_000_000}, Done: 16_000_000,
			Output: "I don't cook food at home", InputTokens: 4, OutputTokens: 6},
	}
}

// TestGenAIPerfExample recomputes every LLM metric of GenAI-Perf's example
// export and compares each number with its JSON, float for float. By hand:
// ttft 4, 5 ms; ttst 3, 4 ms; latency 11, 13 ms; itl (11−4)/2 = 3.5 and
// (13−5)/5 = 1.6 ms; tps/user 1/0.0035 = 285.71… and 1/0.0016 = 625;
// duration 15 − 1 = 14 ms, so 2/0.014 = 142.857… req/s and 9/0.014 =
// 642.857… tokens/s; both requests meet ttft ≤ 5 ms and latency ≤ 13 ms,
// so goodput equals the throughput.
func TestGenAIPerfExample(t *testing.T) {
	want := readExampleJSON(t)
	var slos []SLO
	for name, v := range want.InputConfig.Input.Goodput {
		slo, err := ParseGoodput(fmt.Sprintf("%s:%v", name, v))
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	s := Summarize(exampleRecords(), Options{Goodput: slos})

	dists := map[string]*Distribution{
		"time_to_first_token":              s.TimeToFirstToken.Scaled(1e-6),
		"time_to_second_token":             s.TimeToSecondToken.Scaled(1e-6),
		"inter_token_latency":              s.InterTokenLatency.Scaled(1e-6),
		"request_latency":                  s.RequestLatency.Scaled(1e-6),
		"output_token_throughput_per_user": s.OutputTokenThroughputPerUser,
		"output_sequence_length":           s.OutputSequenceLength,
		"input_sequence_length":            s.InputSequenceLength,
	}
	scalars := map[string]float64{
		"request_throughput":      s.RequestThroughput,
		"output_token_throughput": s.OutputTokenThroughput,
		"request_count":           float64(s.RequestCount),
	}
	if s.RequestGoodput != nil {
		scalars["request_goodput"] = *s.RequestGoodput
	}
	for metric, stats := range want.Metrics {
		got := map[string]float64{}
		if d, ok := dists[metric]; ok && d != nil {
			got = statsOf(d)
		} else if v, ok := scalars[metric]; ok {
			got["avg"] = v
		}
		for stat, w := range stats {
			g, ok := got[stat]
			if !ok {
				t.Errorf("%s.%s: missing, want %v", metric, stat, w)
				continue
			}
			same(t, metric+"."+stat, g, w)
		}
	}
	if len(want.Metrics) != len(dists)+len(scalars) {
		t.Errorf("example has %d metrics, llmbench computed %d", len(want.Metrics), len(dists)+len(scalars))
	}
}

// exampleJSON is the part of profile_export_genai_perf.json this test reads.
type exampleJSON struct {
	Metrics     map[string]map[string]float64
	InputConfig struct {
		Input struct {
			Goodput map[string]float64 `json:"goodput"`
		} `json:"input"`
	}
}

func readExampleJSON(t *testing.T) exampleJSON {
	raw, err := os.ReadFile("testdata/genai-perf-example/example_profile_export_genai_perf.json")
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	var out exampleJSON
	if err := json.Unmarshal(top["input_config"], &out.InputConfig); err != nil {
		t.Fatal(err)
	}
	out.Metrics = map[string]map[string]float64{}
	for key, v := range top {
		if key == "input_config" || key == "telemetry_stats" {
			continue
		}
		var stats map[string]any
		if err := json.Unmarshal(v, &stats); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out.Metrics[key] = map[string]float64{}
		for stat, value := range stats {
			if f, ok := value.(float64); ok {
				out.Metrics[key][stat] = f
			}
		}
	}
	return out
}

// statsOf names a distribution's statistics with GenAI-Perf's JSON keys.
func statsOf(d *Distribution) map[string]float64 {
	return map[string]float64{
		"avg": d.Avg, "min": d.Min, "max": d.Max, "std": d.Std,
		"p1": d.P1, "p5": d.P5, "p10": d.P10, "p25": d.P25, "p50": d.P50,
		"p75": d.P75, "p90": d.P90, "p95": d.P95, "p99": d.P99,
	}
}

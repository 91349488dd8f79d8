package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// fromScheduleScenario drives a one-slot simulator (20 ms to the first
// token, 4 more tokens 2 ms apart: about 28 ms a request, 35/s at most) at
// a constant 70/s with the client holding requests back to one in flight.
// Every request the server sees is served at once, so ttft stays near
// 20 ms; but each waits longer than the one before to be sent, which only
// the latencies from the schedule count (coordinated omission). The
// gates say so too: the same 200 ms bound passes on ttft and fails on
// ttft_from_schedule.
const fromScheduleScenario = `
def main(ctx):
    return experiment(
        name = "co",
        endpoint = endpoint(url = "sim://?max_batch=1&ttft=20ms&itl=2ms&itl_per_seq=0ms&prefill_per_token=0s&jitter=0",
                            model = "m", stream = True),
        dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(5)),
        traffic = rate(70, arrival = "constant", max_concurrency = 1),
        requests = 40,
        gates = ["ttft.p99 < 200ms", "ttft_from_schedule.p99 < 200ms"],
    )
`

func TestLatencyFromScheduleShowsCoordinatedOmission(t *testing.T) {
	dir, file := writeScenario(t, fromScheduleScenario)
	r := runCLI(t, dir, "run", file, "--no-plots")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the from-schedule gate fails)\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("console:\n%s", r.stdout)

	// summary.json: both latencies as ms distributions.
	type dist = *struct{ Avg, P50, P99 float64 }
	var sum struct {
		Experiments []struct {
			Points []struct {
				Metrics struct {
					TTFT             dist `json:"ttft"`
					TTFTFromSchedule dist `json:"ttft_from_schedule"`
					LatencyFromSched dist `json:"request_latency_from_schedule"`
				} `json:"metrics"`
			} `json:"points"`
		} `json:"experiments"`
	}
	readJSONFile(t, filepath.Join(dir, "out", "summary.json"), &sum)
	if len(sum.Experiments) != 1 || len(sum.Experiments[0].Points) != 1 {
		t.Fatalf("summary.json: %+v", sum)
	}
	m := sum.Experiments[0].Points[0].Metrics
	ttft, fromSched, latSched := m.TTFT, m.TTFTFromSchedule, m.LatencyFromSched
	if ttft == nil || fromSched == nil || latSched == nil {
		t.Fatalf("summary.json metrics: ttft %v, ttft_from_schedule %v, request_latency_from_schedule %v", ttft, fromSched, latSched)
	}
	t.Logf("ttft p50 %.2f p99 %.2f ms; ttft_from_schedule p50 %.2f p99 %.2f ms; request_latency_from_schedule p50 %.2f p99 %.2f ms",
		ttft.P50, ttft.P99, fromSched.P50, fromSched.P99, latSched.P50, latSched.P99)
	// The server's own TTFT is 20 ms: generous bounds for a shared machine.
	if ttft.P99 < 15 || ttft.P99 > 200 {
		t.Errorf("ttft p99 = %.2f ms, want near the server's 20 ms", ttft.P99)
	}
	if fromSched.P99 < 3*ttft.P99 {
		t.Errorf("ttft_from_schedule p99 = %.2f ms, want ≥ 3 × ttft p99 (%.2f ms)", fromSched.P99, ttft.P99)
	}
	if latSched.P99 < fromSched.P99 {
		t.Errorf("request_latency_from_schedule p99 %.2f < ttft_from_schedule p99 %.2f", latSched.P99, fromSched.P99)
	}

	// The wait grows: requests in schedule order, the last quarter's
	// ttft from the schedule well above the first quarter's, while their
	// ttft stays level.
	recs, _ := readRecords(t, filepath.Join(dir, "out", "co", "request_rate70.0", "records.parquet"))
	if len(recs) != 40 {
		t.Fatalf("%d records, want 40", len(recs))
	}
	slices.SortFunc(recs, func(a, b metrics.Record) int { return int(a.Scheduled - b.Scheduled) })
	quarterMeans := func(recs []metrics.Record) (sched, ttft float64) {
		for i := range recs {
			d := metrics.Derive(&recs[i])
			if !d.HasFromSchedule {
				t.Fatalf("record %d: no latency from the schedule (scheduled %d)", recs[i].ID, recs[i].Scheduled)
			}
			sched += float64(d.TTFTFromSchedule) / 1e6
			ttft += float64(d.TTFT) / 1e6
		}
		n := float64(len(recs))
		return sched / n, ttft / n
	}
	firstSched, firstTTFT := quarterMeans(recs[:10])
	lastSched, lastTTFT := quarterMeans(recs[30:])
	t.Logf("first quarter: ttft_from_schedule mean %.2f ms, ttft %.2f ms; last quarter: %.2f ms, %.2f ms",
		firstSched, firstTTFT, lastSched, lastTTFT)
	if lastSched < 2*firstSched || lastSched-firstSched < 100 {
		t.Errorf("ttft_from_schedule does not grow: first quarter %.2f ms, last %.2f ms", firstSched, lastSched)
	}
	if lastTTFT > 3*firstTTFT+50 {
		t.Errorf("ttft grows too (first quarter %.2f ms, last %.2f ms): the server queued, not the client", firstTTFT, lastTTFT)
	}

	// The gate on ttft passes; the same bound from the schedule fails.
	var gates struct {
		Verdicts []struct {
			Gate   string `json:"gate"`
			Passed bool   `json:"passed"`
		} `json:"verdicts"`
	}
	readJSONFile(t, filepath.Join(dir, "out", "gates.json"), &gates)
	passed := map[string]bool{}
	for _, v := range gates.Verdicts {
		passed[v.Gate] = v.Passed
	}
	if p, ok := passed["ttft_from_schedule.p99 < 200ms"]; !ok || p {
		t.Errorf("ttft_from_schedule gate: present %v passed %v, want a failure; verdicts %+v", ok, p, gates.Verdicts)
	}
	if !passed["ttft.p99 < 200ms"] {
		t.Errorf("ttft gate failed; verdicts %+v", gates.Verdicts)
	}

	// Beside the GenAI-Perf figures: the console line and the JSON's
	// llmbench block.
	if !strings.Contains(r.stdout, "From the schedule: TTFT p50 ") ||
		!strings.Contains(r.stdout, "(open loop: includes time requests waited to be sent)") {
		t.Errorf("no from-schedule console line:\n%s", r.stdout)
	}
	var gp struct {
		Llmbench map[string]json.RawMessage `json:"llmbench"`
	}
	readJSONFile(t, filepath.Join(dir, "out", "co", "request_rate70.0", "profile_export_genai_perf.json"), &gp)
	for _, k := range []string{"ttft_from_schedule", "request_latency_from_schedule"} {
		if _, ok := gp.Llmbench[k]; !ok {
			t.Errorf("profile_export_genai_perf.json llmbench block lacks %s", k)
		}
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// fromScheduleScenario drives a one-slot simulator (20 ms to the first
// token, 4 more tokens 2 ms apart, no jitter: at least 28 ms a request,
// 35/s at most) at a constant 70/s with the client holding requests back
// to one in flight. Each request waits to be sent at least 28 − 1000/70
// ms longer than the one before, which only the latencies from the
// schedule count (coordinated omission). A loaded machine can only make
// the server slower and the wait longer, so what the test judges holds
// by construction: a wait that grows at least that fast, the 200 ms
// bound failing on ttft_from_schedule, and per request the difference of
// the two latencies being exactly the wait.
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
	t.Parallel()
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
	if ttft.P99 < 20 || fromSched.P99 < 200 { // the server's 20 ms at least; the 39th request waited ≥ 38 × 13.7 ms
		t.Errorf("ttft p99 = %.2f ms, ttft_from_schedule p99 = %.2f ms; want ≥ 20 and ≥ 200", ttft.P99, fromSched.P99)
	}
	if latSched.P99 < fromSched.P99 {
		t.Errorf("request_latency_from_schedule p99 %.2f < ttft_from_schedule p99 %.2f", latSched.P99, fromSched.P99)
	}

	// The wait grows: requests in schedule order, each sent when the one
	// before ended, so at least minGrowth later than its own schedule
	// than the one before; the latency from the schedule is the TTFT plus
	// exactly that wait, so the server did not queue them.
	recs, _ := readRecords(t, filepath.Join(dir, "out", "co", "request_rate70.0", "records.parquet"))
	if len(recs) != 40 {
		t.Fatalf("%d records, want 40", len(recs))
	}
	slices.SortFunc(recs, func(a, b metrics.Record) int { return int(a.Scheduled - b.Scheduled) })
	const minGrowth = 28*time.Millisecond - time.Second/70
	var wait time.Duration
	for i := range recs {
		d := metrics.Derive(&recs[i])
		w := time.Duration(recs[i].Sent - recs[i].Scheduled)
		if !d.HasFromSchedule || d.TTFTFromSchedule-d.TTFT != int64(w) {
			t.Fatalf("record %d: ttft_from_schedule %d ns, ttft %d ns, waited %s to be sent", recs[i].ID, d.TTFTFromSchedule, d.TTFT, w)
		}
		if i > 0 && w < wait+minGrowth-time.Millisecond { // 1 ms: the schedule's rounding to ns
			t.Errorf("request %d waited %s to be sent, the one before %s: want %s more", i, w, wait, minGrowth)
		}
		wait = w
	}
	t.Logf("the last request waited %s to be sent", wait)

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
	if passed["ttft.p99 < 200ms"] != (ttft.P99 < 200) {
		t.Errorf("ttft gate at p99 %.2f ms: verdicts %+v", ttft.P99, gates.Verdicts)
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

package sweep

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// decoded is summary.json read back the way a program would.
type decoded struct {
	Schema      string `json:"schema"`
	Scenario    string `json:"scenario"`
	Partial     bool   `json:"partial"`
	Experiments []struct {
		Name      string `json:"name"`
		LoadParam string `json:"load_param"`
		Points    []struct {
			Label    string             `json:"label"`
			Params   map[string]float64 `json:"params"`
			Partial  bool               `json:"partial"`
			Requests struct {
				Failed    int     `json:"failed"`
				ErrorRate float64 `json:"error_rate"`
			} `json:"requests"`
			Metrics struct {
				TTFT struct {
					P99 float64 `json:"p99"`
				} `json:"ttft"`
				RequestGoodput *float64 `json:"request_goodput"`
			} `json:"metrics"`
			Gates []struct {
				Gate     string   `json:"gate"`
				Passed   bool     `json:"passed"`
				Measured *float64 `json:"measured"`
			} `json:"gates"`
			Repeats *struct {
				N        int  `json:"n"`
				Disagree bool `json:"disagree"`
				Metrics  map[string]struct {
					Mean   *float64 `json:"mean"`
					Stddev *float64 `json:"stddev"`
				} `json:"metrics"`
			} `json:"repeats"`
		} `json:"points"`
		Knees []struct {
			Gate      string   `json:"gate"`
			Found     bool     `json:"found"`
			Point     *int     `json:"point"`
			Load      *float64 `json:"load"`
			EveryLoad bool     `json:"met_at_every_load"`
		} `json:"knees"`
		MaxGoodput *struct {
			Point int     `json:"point"`
			Load  float64 `json:"load"`
		} `json:"max_goodput"`
		Saturation *struct {
			Saturated bool     `json:"saturated"`
			Load      *float64 `json:"load"`
			Reason    string   `json:"reason"`
			Source    string   `json:"source"`
		} `json:"saturation"`
		Search *struct {
			Found bool     `json:"found"`
			Best  *float64 `json:"best"`
		} `json:"search"`
	} `json:"experiments"`
}

func summaryJSON(t *testing.T, results ...runtime.ExperimentResult) ([]byte, decoded) {
	t.Helper()
	var b bytes.Buffer
	if err := SummaryJSON("capacity.star", results, false)(&b); err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatalf("summary.json does not parse: %v\n%s", err, b.String())
	}
	return b.Bytes(), d
}

// Every point with its metrics in report units, gate results, and the
// experiment's knees, max goodput and saturation, as the table says them.
func TestSummaryJSONSaturating(t *testing.T) {
	raw, d := summaryJSON(t, *saturating(), *growing())
	golden.Check(t, "summary_saturating.json", raw)
	if d.Schema != SummarySchema || d.Scenario != "capacity.star" || d.Partial || len(d.Experiments) != 2 {
		t.Fatalf("header: %+v", d)
	}
	e := d.Experiments[0]
	if e.LoadParam != "concurrency" || len(e.Points) != 5 || e.Points[4].Params["concurrency"] != 16 {
		t.Fatalf("points: %+v", e)
	}
	last := e.Points[4]
	if last.Metrics.TTFT.P99 != 60 || last.Requests.Failed != 3 || last.Requests.ErrorRate != 3 || *last.Metrics.RequestGoodput != 1.5 {
		t.Errorf("last point in report units: %+v", last)
	}
	if len(last.Gates) != 2 || last.Gates[0].Passed || *last.Gates[0].Measured != 3 || last.Gates[1].Passed || *last.Gates[1].Measured != 60 {
		t.Errorf("gates of the last point (error_rate in %%, ttft in ms): %+v", last.Gates)
	}
	// error_rate < 1% fails at 16, so its knee is 8 as well as ttft's.
	if len(e.Knees) != 2 || !e.Knees[1].Found || *e.Knees[1].Load != 8 || *e.Knees[1].Point != 3 || e.Knees[1].EveryLoad {
		t.Errorf("knees: %+v", e.Knees)
	}
	if e.MaxGoodput == nil || e.MaxGoodput.Load != 4 || e.MaxGoodput.Point != 2 {
		t.Errorf("max goodput: %+v", e.MaxGoodput)
	}
	if s := e.Saturation; s == nil || !s.Saturated || *s.Load != 4 || s.Source != "rule" || s.Reason == "" {
		t.Errorf("saturation: %+v", s)
	}
	g := d.Experiments[1]
	if g.Saturation == nil || g.Saturation.Saturated || *g.Saturation.Load != 8 || g.MaxGoodput != nil || !g.Knees[0].EveryLoad {
		t.Errorf("never-saturating experiment: %+v", g)
	}
}

// The runtime's saturation verdict and a search result are carried over;
// repeats appear with their statistics (null where one run cannot say);
// an interrupted point marks the whole file partial.
func TestSummaryJSONAdaptiveRepeatsPartial(t *testing.T) {
	res := growing()
	g, _ := metrics.ParseGate("ttft.p99 < 50ms")
	res.Experiment.Sweep = &plan.Sweep{Search: &plan.Search{Gate: g, Over: metrics.ParamConcurrency, Lo: 1, Hi: 8}}
	res.Capacity = runtime.AnalyzeCapacity(res, &runtime.Capacity{
		Search:     &runtime.SearchResult{Found: true, Best: 8, Point: 3},
		Saturation: &runtime.SaturationResult{Saturated: true, Point: 2, Reason: "said the runtime", Source: runtime.SaturationByRule}})
	s1, s2 := summaryOf(measured{1, 10, 5, 100, 1, -1, 0}), summaryOf(measured{1, 11, 5, 130, 1, -1, 0})
	res.Points[0].RepeatStats = metrics.HeadlineRepeats([]*metrics.Summary{&s1, &s2})
	res.Points[0].Repeats = append(res.Points[0].Repeats, &runtime.Outcome{Summary: s2})
	one := metrics.HeadlineRepeats([]*metrics.Summary{&s1})
	res.Points[1].RepeatStats = one
	res.Points[3].Outcome.Interrupted = true

	_, d := summaryJSON(t, *res)
	e := d.Experiments[0]
	if !d.Partial || !e.Points[3].Partial || e.Points[2].Partial {
		t.Errorf("partial flags: file %v, points %+v", d.Partial, e.Points)
	}
	if s := e.Saturation; s == nil || s.Source != "rule" || s.Reason != "said the runtime" || *s.Load != 4 {
		t.Errorf("saturation: %+v", s)
	}
	if e.Search == nil || !e.Search.Found || *e.Search.Best != 8 {
		t.Errorf("search: %+v", e.Search)
	}
	r := e.Points[0].Repeats
	if r == nil || r.N != 2 || !r.Disagree || math.Abs(*r.Metrics["ttft.p99"].Mean-10.5) > 1e-9 {
		t.Errorf("repeats: %+v", r)
	}
	if r1 := e.Points[1].Repeats; r1 == nil || r1.Metrics["ttft.p99"].Stddev != nil {
		t.Errorf("one repeat must give a null stddev: %+v", r1)
	}
}

// No experiments is still a valid file.
// An until_saturation sweep's verdict is reported as its own.
func TestSummaryJSONUntilSaturation(t *testing.T) {
	res := growing()
	res.Experiment.Sweep = &plan.Sweep{Saturation: &plan.Saturation{Over: metrics.ParamConcurrency, Start: 1, Factor: 2, Limit: 8}}
	res.Capacity = runtime.AnalyzeCapacity(res, &runtime.Capacity{Saturation: &runtime.SaturationResult{Point: 3,
		Reason: "reached the limit (concurrency 8) without saturating", Source: runtime.SaturationBySweep}})
	_, d := summaryJSON(t, *res)
	if s := d.Experiments[0].Saturation; s == nil || s.Source != "until_saturation" || s.Saturated || *s.Load != 8 {
		t.Errorf("saturation: %+v", s)
	}
}

func TestSummaryJSONEmpty(t *testing.T) {
	_, d := summaryJSON(t)
	if d.Schema != SummarySchema || d.Experiments == nil {
		t.Errorf("%+v", d)
	}
}

// TestMetricsFromSchedule: the latencies from the schedule are ms
// distributions in an open-loop point and null in a closed-loop one.
// TTFT from the schedule 2 and 4 ms: avg 3; request latency 10 and 20 ms:
// p50 15.
func TestMetricsFromSchedule(t *testing.T) {
	open := metrics.Summary{
		TTFTFromSchedule:           metrics.NewDistribution([]float64{2e6, 4e6}),
		RequestLatencyFromSchedule: metrics.NewDistribution([]float64{10e6, 20e6}),
	}
	b, err := json.Marshal(metricsOf(&open))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TTFT    *struct{ Avg float64 } `json:"ttft_from_schedule"`
		Latency *struct{ P50 float64 } `json:"request_latency_from_schedule"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.TTFT == nil || got.TTFT.Avg != 3 || got.Latency == nil || got.Latency.P50 != 15 {
		t.Errorf("open loop: %s", b)
	}
	b, _ = json.Marshal(metricsOf(&metrics.Summary{}))
	for _, key := range []string{`"ttft_from_schedule":null`, `"request_latency_from_schedule":null`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("closed loop: %s lacks %s", b, key)
		}
	}
	for _, m := range []*metrics.Metric{metrics.TTFTFromSchedule, metrics.RequestLatencyFromSchedule} {
		if v := 5e6 * m.Scale(); v != 5 {
			t.Errorf("%s: 5e6 ns in report units = %v, want 5 (ms)", m, v)
		}
	}
}

// A gate's measured value is in the report units its message prints:
// kv_cache_usage was written as the ratio 0.875 beside "87.50%", the one
// ratio the old table of report units had left out.
func TestGateMeasuredInReportUnits(t *testing.T) {
	out := &runtime.Outcome{Summary: metrics.Summary{}}
	p := runtime.PointResult{Params: plan.Params{"concurrency": 1}, Outcome: out}
	for _, c := range []struct {
		gate     string
		measured float64
	}{{"kv_cache_usage.max < 90%", 0.875}, {"gpu_utilization > 50%", 0.5}, {"ttft.p99 < 1s", 250e6}} {
		g, err := metrics.ParseGate(c.gate)
		if err != nil {
			t.Fatal(err)
		}
		p.Gates = append(p.Gates, runtime.GateResult{Gate: g, Measured: c.measured, Passed: true})
	}
	pj := pointOf(0, &p)
	for i, want := range []float64{87.5, 50, 250} {
		if got := pj.Gates[i].Measured; got == nil || *got != want {
			b, _ := json.Marshal(got)
			t.Errorf("%s: measured %s, want %v (%s)", pj.Gates[i].Gate, b, want, pj.Gates[i].Message)
		}
	}
}

// summary.json names only catalogue metrics: the metrics block holds
// exactly the catalogue's summary.json metrics, and the gates and repeat
// statistics are of catalogue metrics.
func TestSummaryNamesOnlyCatalogueMetrics(t *testing.T) {
	res := saturating()
	p := &res.Points[0]
	p.RepeatStats = metrics.HeadlineRepeats([]*metrics.Summary{&p.Outcome.Summary, &res.Points[1].Outcome.Summary})
	raw, _ := summaryJSON(t, *res)
	var doc struct {
		Experiments []struct {
			Points []struct {
				Metrics map[string]any `json:"metrics"`
				Gates   []struct {
					Gate string `json:"gate"`
				} `json:"gates"`
				Repeats *struct {
					Metrics map[string]any `json:"metrics"`
				} `json:"repeats"`
			} `json:"points"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	named := func(what, name string) {
		base, _, _ := strings.Cut(name, ".")
		if _, ok := metrics.Lookup(base); !ok {
			t.Errorf("summary.json %s names %q, which the catalogue lacks", what, name)
		}
	}
	pt := doc.Experiments[0].Points[0]
	for _, m := range metrics.Catalogue() {
		if m.OnlyWhenMeasured() { // a text-only point has no media metrics
			continue
		}
		if _, ok := pt.Metrics[m.Name]; ok != m.InSummaryJSON() {
			t.Errorf("metrics block has %s: %v, catalogue says %v", m.Name, ok, m.InSummaryJSON())
		}
	}
	for key := range pt.Metrics {
		named("metrics", key)
	}
	for _, g := range pt.Gates {
		named("gates", strings.Fields(g.Gate)[0])
	}
	if pt.Repeats == nil {
		t.Fatal("no repeats")
	}
	for key := range pt.Repeats.Metrics {
		named("repeats", key)
	}
}

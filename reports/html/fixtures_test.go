package html

import (
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

const msNS = int64(1e6)

// mixedRecords is n streamed requests from two dataset components, the
// "long" one slower, plus two failures of different classes.
func mixedRecords(n int, slow float64) []metrics.Record {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	recs := make([]metrics.Record, 0, n+2)
	for i := range n {
		comp, isl := "chat", 100+rng.IntN(200)
		if i%3 == 0 {
			comp, isl = "long", 1500+rng.IntN(500)
		}
		osl := 20 + rng.IntN(60)
		sent := int64(i) * 20 * msNS
		t := sent + int64(float64(isl)*slow)*msNS/10
		chunks := []int64{t}
		for range osl - 1 {
			t += int64((8 + rng.ExpFloat64()*2) * slow * float64(msNS))
			chunks = append(chunks, t)
		}
		recs = append(recs, metrics.Record{ID: int64(i), Component: comp, Sent: sent, Chunks: chunks,
			Done: t, InputTokens: isl, OutputTokens: osl})
	}
	recs = append(recs,
		metrics.Record{ID: int64(n), Component: "long", Sent: 1, Done: 2,
			Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 503, Message: `<script>alert("x")</script> overloaded`}},
		metrics.Record{ID: int64(n + 1), Component: "chat", Sent: 1, Done: 2,
			Err: &metrics.Failure{Class: metrics.ErrTimeout, Message: "idle timeout 30s"}})
	return recs
}

// sweepFixture is a three-point concurrency sweep with a TTFT gate that
// fails at the highest load, and the verdicts it yields.
// Each point's plots are drawn into pointsDir/<point>/plots, as a run
// draws them while the point runs.
func sweepFixture(t *testing.T, pointsDir string) ([]runtime.ExperimentResult, []verdict.Verdict) {
	t.Helper()
	g, err := metrics.ParseGate("ttft.p99 < 300ms")
	if err != nil {
		t.Fatal(err)
	}
	exp := &plan.Experiment{Name: "chat-mix", Endpoint: plan.Endpoint{URL: "sim://", Model: "llama-3", Stream: true},
		Load: plan.Load{Concurrency: 1}, Requests: 60, Repeats: 1, Seed: 42, Gates: []metrics.Gate{g},
		Sweep: &plan.Sweep{Params: []plan.SweepParam{{Name: metrics.ParamConcurrency, Values: []float64{1, 4, 16}}}}}
	res := runtime.ExperimentResult{Experiment: exp}
	for i, c := range []float64{1, 4, 16} {
		recs := mixedRecords(60, 1+float64(i))
		s := metrics.Summarize(recs, metrics.Options{})
		measured := s.TimeToFirstToken.P99
		pr := runtime.PointResult{
			Params:  plan.Params{metrics.ParamConcurrency: c},
			Outcome: &runtime.Outcome{Summary: s, Components: components(recs)},
			Gates:   []runtime.GateResult{{Gate: g, Measured: measured, Passed: measured < g.Value}}}
		res.Points = append(res.Points, pr)
		data := plots.NewPointData()
		for i := range recs {
			data.Add(&recs[i])
		}
		imgs, err := plots.RenderPointPlots(pr.Params.Label(), data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plots.WriteImages(filepath.Join(pointsDir, pr.Params.Label(), "plots"), imgs); err != nil {
			t.Fatal(err)
		}
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, &runtime.Capacity{Saturation: &runtime.SaturationResult{
		Saturated: true, Point: 1, Reason: "p99 TTFT grew past 3× the lowest load", Source: runtime.SaturationByRule}})
	results := []runtime.ExperimentResult{res}
	return results, verdict.Collect(results)
}

// components summarizes each dataset component on its own, as a run does.
func components(recs []metrics.Record) []runtime.ComponentSummary {
	byName := map[string][]metrics.Record{}
	for _, r := range recs {
		byName[r.Component] = append(byName[r.Component], r)
	}
	var out []runtime.ComponentSummary
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, runtime.ComponentSummary{Name: name, Summary: metrics.Summarize(byName[name], metrics.Options{})})
	}
	return out
}

// writePage writes rep's page to w.
func writePage(w io.Writer, rep Report) error { return Page(rep)(w) }

// filesIn gives each point's plots from the files list finds in its
// plots/ folder under pointsDir, where the fixtures drew them.
func filesIn(t *testing.T, pointsDir string, list func(dir string) []string) PointImages {
	return func(_ string, pt *runtime.PointResult) ([]plots.Image, error) {
		var imgs []plots.Image
		for _, path := range list(filepath.Join(pointsDir, pt.Params.Label(), "plots")) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			imgs = append(imgs, plots.Image{Name: filepath.Base(path), PNG: b})
		}
		return imgs, nil
	}
}

// must is v; an error fails the test that called it by a panic.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// Package storedruntest writes stored runs for tests: the folders `run`,
// `profile` and `analyze` leave, written by the same observers and point
// writers (reports/artifacts) from requests a test makes up, so a test of
// a reader of stored runs (storedrun, regression, report, compare, merge,
// baseline gates) needs no server and waits for nothing. It drives the
// observers as runtime's engine does — each run of a point started,
// given its records, finished with their outcome, then the point done —
// without sending a request.
package storedruntest

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	runplan "github.com/llmbench/llmbench/runtime/plan"
)

// Requests gives the records of one run of a point (key names it).
type Requests func(key runtime.PointKey) []metrics.Record

// Run writes the experiment plan describes into out as `llmbench run`
// of a scenario named scenario writes it: every point of its grid and
// every repeat (OUT/<experiment>/<point>[/repeatK]/), each with the
// records reqs gives it, then each point's GenAI-Perf files. The gates
// are judged but no gates.json or summary.json is written: `run` writes
// those after check(), which a test does not have. It returns out.
func Run(t testing.TB, out, scenario string, plan runplan.Experiment, reqs Requests) string {
	t.Helper()
	return Shard(t, out, scenario, plan, engine.Shard{}, reqs)
}

// Shard is Run as one shard of a distributed run writes it (`run --shard
// I/N`): the same folders, each run's plan naming the shard and when it
// started (its first request), for `merge` to join; reqs gives the
// shard's own requests.
func Shard(t testing.TB, out, scenario string, plan runplan.Experiment, shard engine.Shard, reqs Requests) string {
	t.Helper()
	exp := experiment(t, plan)
	obs := &artifacts.ScenarioObserver{Session: session(), Scenario: scenario, Out: out, Exp: exp}
	write(t, obs, exp, shard, reqs)
	return out
}

// Profile writes what `llmbench profile` (experiment "") or, with a sweep
// in plan, `llmbench analyze` (experiment plan.Name) writes into
// artifactDir: each point in its GenAI-Perf folder
// (<model>-openai-chat-concurrency8), named as analyze names it. It
// returns artifactDir.
func Profile(t testing.TB, artifactDir string, plan runplan.Experiment, reqs Requests) string {
	t.Helper()
	exp := experiment(t, plan)
	specs, err := exp.Points()
	if err != nil {
		t.Fatal(err)
	}
	obs := &artifacts.GenAIPerfObserver{Session: session(), Exp: exp, Points: map[string]*artifacts.GenAIPerfPoint{}}
	if plan.Sweep != nil {
		obs.Experiment, obs.Header = exp.Name, true
	}
	for _, spec := range specs {
		run := genaiperf.DefaultRun(exp.Endpoint.ModelNames()...)
		run.ArtifactDir, run.EndpointType, run.Streaming = artifactDir, string(exp.Endpoint.API), exp.Endpoint.Stream
		run.Stimulus = genaiperf.Stimulus{Concurrency: spec.Load.Concurrency, RequestRate: spec.Load.Rate}
		run.RequestCount = exp.Requests
		label := run.DirName()
		if plan.Sweep != nil {
			label = spec.Params.Label()
		}
		obs.Points[spec.Params.Label()] = &artifacts.GenAIPerfPoint{Label: label, Run: run}
	}
	write(t, obs, exp, engine.Shard{}, reqs)
	return artifactDir
}

// experiment is the plan as the engine runs it.
func experiment(t testing.TB, plan runplan.Experiment) *runplan.Experiment {
	t.Helper()
	plan.Repeats = max(plan.Repeats, 1)
	return &plan
}

// write runs every point of exp through obs as the engine would.
func write(t testing.TB, obs runtime.Observer, exp *runplan.Experiment, shard engine.Shard, reqs Requests) {
	t.Helper()
	specs, err := exp.Points()
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range specs {
		outs := make([]*runtime.Outcome, exp.Repeats)
		for k := range outs {
			key := runtime.PointKey{Experiment: exp.Name, Params: spec.Params, Repeat: k + 1}
			outs[k] = writeRepeat(t, obs, exp, shard, spec, key, reqs(key))
		}
		pr := runtime.NewPointResult(exp, nil, spec.Params, outs)
		if err := obs.PointDone(&pr); err != nil {
			t.Fatalf("storedruntest: point %s: %v", spec.Params.Label(), err)
		}
	}
}

// writeRepeat is one run of a point: started, given its records,
// finished with what they reduce to.
func writeRepeat(t testing.TB, obs runtime.Observer, exp *runplan.Experiment, shard engine.Shard, spec runplan.PointSpec, key runtime.PointKey, recs []metrics.Record) *runtime.Outcome {
	t.Helper()
	job := &runtime.Job{Endpoint: exp.Endpoint, Point: engine.Point{Load: spec.Load, Stop: runplan.Stop{Requests: len(recs)}, Shard: shard},
		Count: runtime.CountMode(exp.Endpoint.TokenCount), Goodput: exp.Goodput}
	if job.Count == "" || job.Count == "auto" {
		job.Count = runtime.ByUsage
	}
	for i := range recs { // a payload per dataset entry: inputs.json and the export list them
		for len(job.Requests) <= recs[i].Entry {
			text := strings.TrimSpace(strings.Repeat("word ", recs[i].InputTokens)) // as many words as tokens
			body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}],"stream":%t}`, exp.Endpoint.Model, text, exp.Endpoint.Stream)
			job.Requests = append(job.Requests, engine.Request{Text: text, Body: []byte(body)})
		}
	}
	watch, err := obs.RunStarting(key, job)
	if err != nil {
		t.Fatalf("storedruntest: %s: %v", key, err)
	}
	if err := watch.Records().Write(recs...); err != nil {
		t.Fatalf("storedruntest: %s: %v", key, err)
	}
	acc := metrics.NewAccumulator(metrics.Options{Goodput: exp.Goodput})
	parts := runtime.ComponentAccumulators{Goodput: exp.Goodput}
	for i := range recs {
		acc.Add(&recs[i])
		parts.Add(&recs[i])
	}
	out := &runtime.Outcome{Counting: runtime.Counting{Mode: job.Count}, Summary: acc.Summary(), Components: parts.Summaries(), Goodput: exp.Goodput}
	if shard.Sharded() && len(recs) > 0 {
		out.Shard = &runtime.ShardRun{Index: shard.Index, Count: shard.Count, Started: recs[0].Sent}
	}
	if err := watch.Finish(out); err != nil {
		t.Fatalf("storedruntest: %s: %v", key, err)
	}
	return out
}

// session writes tables and messages nowhere, with no live display.
func session() artifacts.Session {
	return artifacts.Session{Stdout: io.Discard, Stderr: io.Discard, Display: noDisplay{}, Sink: artifacts.SinkOptions{Version: "storedruntest"}}
}

type noDisplay struct{}

func (noDisplay) Start(string, int, int) *engine.Progress { return nil }
func (noDisplay) End()                                    {}

// Shape is what each request Make makes measured.
type Shape struct {
	// TTFT is the time to the first chunk; each request adds i mod 5
	// tenths of a millisecond, so statistics have something to see.
	TTFT time.Duration
	// ITL is the gap between chunks, one token each.
	ITL time.Duration
	// ISL and OSL are the tokens in and out (default 20 and 8).
	ISL, OSL int
	// Component names the dataset component of every request ("").
	Component string
	// Failed is how many of the requests, the last ones, fail (HTTP 500).
	Failed int
	// Start is when the first request is sent (default 2026-01-01 UTC).
	Start time.Time
}

// Make is n requests of one shape sent one after the other, as a closed
// loop of one sends them, each sent when the one before ended.
func Make(n int, s Shape) []metrics.Record {
	if s.ISL == 0 {
		s.ISL = 20
	}
	if s.OSL == 0 {
		s.OSL = 8
	}
	if s.Start.IsZero() {
		s.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	recs := make([]metrics.Record, n)
	at := s.Start.UnixNano()
	for i := range recs {
		r := metrics.Record{ID: int64(i), Entry: i, Component: s.Component, Sent: at, InputTokens: s.ISL}
		if i >= n-s.Failed {
			r.Done = at + int64(s.TTFT)
			r.Err = &metrics.Failure{Class: metrics.ErrHTTP, Status: 500, Message: "made to fail"}
		} else {
			chunk := at + int64(s.TTFT) + int64(i%5)*int64(100*time.Microsecond)
			for k := range s.OSL {
				r.Output += fmt.Sprintf("t%d ", k)
				r.Chunks = append(r.Chunks, chunk)
				r.ChunkEnds = append(r.ChunkEnds, int32(len(r.Output)))
				chunk += int64(s.ITL)
			}
			r.Done = r.Chunks[len(r.Chunks)-1]
			r.OutputTokens = s.OSL
			r.Usage = metrics.Usage{PromptTokens: s.ISL, CompletionTokens: s.OSL, Reported: true}
		}
		recs[i] = r
		at = r.Done + int64(time.Millisecond)
	}
	return recs
}

// Same gives every run of every point the same requests.
func Same(recs []metrics.Record) Requests {
	return func(runtime.PointKey) []metrics.Record { return recs }
}

// Chat is a plan of a streaming chat experiment of model m at
// concurrency 1, requests requests per point, sweeping concurrency over
// sweep when given: what a test changes one field of.
func Chat(name string, requests int, sweep ...float64) runplan.Experiment {
	p := runplan.Experiment{Name: name, Endpoint: runplan.Endpoint{URL: "http://127.0.0.1:1", API: "chat", Stream: true, Model: "m"},
		Dataset: runplan.Described("synthetic(input_tokens = fixed(20), output_tokens = fixed(8))"), Load: runplan.Load{Concurrency: 1},
		Requests: requests, Repeats: 1}
	if len(sweep) > 0 {
		p.Sweep = &runplan.Sweep{Params: []runplan.SweepParam{{Name: "concurrency", Values: sweep}}}
	}
	return p
}

// Gates parses gates as a scenario writes them: what a test adds to a
// plan.
func Gates(t testing.TB, sources ...string) []metrics.Gate {
	t.Helper()
	gates := make([]metrics.Gate, len(sources))
	for i, src := range sources {
		g, err := metrics.ParseGate(src)
		if err == nil {
			err = g.PriceIn("EUR") // as experiment() prices a cost gate
		}
		if err != nil {
			t.Fatalf("storedruntest: %v", err)
		}
		gates[i] = g
	}
	return gates
}

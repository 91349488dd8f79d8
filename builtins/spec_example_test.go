package builtins

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// The example of SPEC §6, verbatim in testdata/spec_example.star, must load
// into exactly the plan it describes.
func TestSpecExamplePlan(t *testing.T) {
	scen, err := Load("testdata/spec_example.star", nil, Options{LookupEnv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if scen.File != "testdata/spec_example.star" || len(scen.Experiments) != 1 || scen.Check == nil {
		t.Fatalf("scenario %+v", scen)
	}
	e := scen.Experiments[0]
	wantEndpoint := plan.Endpoint{
		URL: "sim://", API: transport.Chat, Stream: true, Model: "meta-llama/Llama-3.1-8B-Instruct",
		Extra:   []transport.Field{{Key: "ignore_eos", Value: json.RawMessage("true")}},
		Timeout: 10 * time.Minute, IdleTimeout: transport.DefaultIdleTimeout, TokenCount: "auto",
		MaxResponseSize: transport.DefaultMaxResponseSize, MaxSSELineSize: transport.DefaultMaxSSELineSize,
	}
	if !reflect.DeepEqual(e.Endpoint, wantEndpoint) {
		t.Errorf("endpoint\n got %+v\nwant %+v", e.Endpoint, wantEndpoint)
	}
	wantData := dataset.Mix{
		Components: []dataset.Source{
			dataset.Synthetic{Input: dataset.Normal{Mu: 300, Sigma: 30}, Output: dataset.Fixed{N: 100}, Prefixes: 1, Entries: 100},
			dataset.Synthetic{Input: dataset.Fixed{N: 4096}, Output: dataset.Fixed{N: 512}, PrefixTokens: 1024, Prefixes: 1, Entries: 100},
		},
		Names: []string{"", ""}, Weights: []float64{0.8, 0.2},
	}
	if !reflect.DeepEqual(e.Dataset, wantData) {
		t.Errorf("dataset\n got %#v\nwant %#v", e.Dataset, wantData)
	}
	if e.Name != "chat-capacity" || e.Load != (plan.Load{Concurrency: 1}) || e.Requests != 200 ||
		e.Duration != 0 || e.Warmup != 20 || e.Repeats != 3 || e.Seed != 0 {
		t.Errorf("experiment %+v", e)
	}
	wantSweep := &plan.Sweep{Params: []plan.SweepParam{{Name: "concurrency", Values: []float64{1, 2, 4, 8, 16, 32, 64}}}}
	if !reflect.DeepEqual(e.Sweep, wantSweep) {
		t.Errorf("sweep %+v", e.Sweep)
	}
	wantGoodput := []metrics.SLO{{Metric: metrics.GoodputTTFT, Value: 500}, {Metric: metrics.GoodputITL, Value: 50}}
	if !reflect.DeepEqual(e.Goodput, wantGoodput) {
		t.Errorf("goodput %+v", e.Goodput)
	}
	for i, src := range []string{"ttft.p99 < 500ms @ concurrency=16", "error_rate < 1%", "output_token_throughput >= 1000 @ concurrency=16"} {
		want, _ := metrics.ParseGate(src)
		if !reflect.DeepEqual(e.Gates[i], want) {
			t.Errorf("gate %d: got %+v, want %+v", i, e.Gates[i], want)
		}
	}
}

func noEnv(string) (string, bool) { return "", false }

// -D and the environment reach the example as it intends.
func TestSpecExampleVarsAndEnv(t *testing.T) {
	env := map[string]string{"LLM_URL": "http://gpu-box:8000", "TOKENIZER": "meta-llama/Llama-3.1-8B-Instruct"}
	scen, err := Load("testdata/spec_example.star", map[string]string{"requests": "20"}, Options{
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err != nil {
		t.Fatal(err)
	}
	e := scen.Experiments[0]
	if e.Requests != 20 || e.Endpoint.URL != "http://gpu-box:8000" || e.Endpoint.Tokenizer != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("got requests %d, endpoint %+v", e.Requests, e.Endpoint)
	}
}

// The example's check() fails the run when the knee of p99 TTFT < 500 ms is
// below concurrency 16, and passes otherwise.
func TestSpecExampleCheck(t *testing.T) {
	scen, err := Load("testdata/spec_example.star", nil, Options{LookupEnv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	exp := &scen.Experiments[0]
	// p99 TTFT grows with load: 20 ms per step of the sweep.
	healthy := sweepResult(exp, func(c float64) float64 { return c * 20 })
	if err := scen.Check([]runtime.ExperimentResult{healthy}); err != nil {
		t.Errorf("healthy run: %v", err)
	}
	// Past concurrency 8, p99 TTFT is 600 ms: the knee is at 8.
	slow := sweepResult(exp, func(c float64) float64 { return map[bool]float64{true: 100, false: 600}[c <= 8] })
	err = scen.Check([]runtime.ExperimentResult{slow})
	var cf *CheckFailure
	if !errors.As(err, &cf) || len(cf.Messages) != 1 || cf.Messages[0] != "capacity regressed: knee at concurrency 8" ||
		cf.Where != "testdata/spec_example.star:28:13" {
		t.Errorf("got %#v", err)
	}
	// At every load too slow: knee() is None, and the script's
	// None.concurrency is a script fault, not a failed check.
	broken := sweepResult(exp, func(float64) float64 { return 900 })
	err = scen.Check([]runtime.ExperimentResult{broken})
	var le *LoadError
	if !errors.As(err, &le) || errors.As(err, &cf) || le.Line != 27 {
		t.Errorf("got %#v", err)
	}
}

// sweepResult fakes a run of exp's sweep whose TTFT (every request the
// same, in ms) is ttft(concurrency).
func sweepResult(exp *plan.Experiment, ttft func(c float64) float64) runtime.ExperimentResult {
	res := runtime.ExperimentResult{Experiment: exp}
	for _, c := range exp.Sweep.Params[0].Values {
		ns := ttft(c) * 1e6
		sum := metrics.Summary{TimeToFirstToken: metrics.NewDistribution([]float64{ns, ns, ns}), Completed: 3,
			OutputTokenThroughput: 100 * c, RequestThroughput: c}
		res.Points = append(res.Points, runtime.PointResult{
			Params:  plan.Params{metrics.ParamConcurrency: c},
			Outcome: &runtime.Outcome{Summary: sum},
		})
	}
	return res
}

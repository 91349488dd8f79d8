package runtime

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// bodyModels renders n entries for e and returns the model each body names.
func bodyModels(t *testing.T, e plan.Endpoint, n int) []string {
	t.Helper()
	reqs := Requests(e, make([]dataset.Entry, n))
	models := make([]string, len(reqs))
	for i, r := range reqs {
		var body struct{ Model string }
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		models[i] = body.Model
	}
	return models
}

// Round robin gives dataset entry i models[i % n], as GenAI-Perf's
// converters do; one model (Models unset) names it in every body.
func TestRequestsRoundRobinModels(t *testing.T) {
	e := plan.Endpoint{API: transport.Chat, Model: "a", Models: []string{"a", "b", "c"}}
	if got, want := bodyModels(t, e, 7), []string{"a", "b", "c", "a", "b", "c", "a"}; !slices.Equal(got, want) {
		t.Errorf("round robin: %v, want %v", got, want)
	}
	e.ModelSelection = plan.RoundRobin
	if got := bodyModels(t, e, 3); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("explicit round_robin: %v", got)
	}
	single := plan.Endpoint{API: transport.Completions, Model: "only"}
	if got := bodyModels(t, single, 3); !slices.Equal(got, []string{"only", "only", "only"}) {
		t.Errorf("one model: %v", got)
	}
}

// Random selection is a function of the seed: the same seed gives the
// same assignment, every model is used, and another seed changes it.
func TestRequestsRandomModelsFollowSeed(t *testing.T) {
	e := plan.Endpoint{API: transport.Chat, Model: "a", Models: []string{"a", "b"}, ModelSelection: plan.RandomModel, ModelSeed: 7}
	first, again := bodyModels(t, e, 64), bodyModels(t, e, 64)
	if !slices.Equal(first, again) {
		t.Fatalf("same seed, different models:\n%v\n%v", first, again)
	}
	counts := map[string]int{}
	for _, m := range first {
		counts[m]++
	}
	if counts["a"] == 0 || counts["b"] == 0 || len(counts) != 2 {
		t.Errorf("64 draws over [a b]: %v", counts)
	}
	e.ModelSeed = 8
	if slices.Equal(first, bodyModels(t, e, 64)) {
		t.Errorf("seeds 7 and 8 gave the same 64 choices")
	}
}

// TestSimConfigIgnoresNothing: a sim:// URL part SimConfig does not read
// (the "?" forgotten, a pair joined by ";", a bad escape) used to be
// dropped silently, running the simulator with its defaults; it is
// refused. Several bad parameters give the same error every time.
func TestSimConfigIgnoresNothing(t *testing.T) {
	for raw, want := range map[string]string{
		"sim://max_batch=8":           "want sim:// and settings after ?",
		"sim:///?max_batch=8":         "want sim:// and settings after ?",
		"sim://?itl=5ms#frag":         "want sim:// and settings after ?",
		"sim://?max_batch=8;itl=5ms":  "invalid semicolon separator in query (want name=value pairs joined by &)",
		"sim://?max_batch=%zz":        `invalid URL escape "%zz"`,
		"sim://?zeta=1&alpha=1&itl=x": `unknown parameter "alpha"`,
	} {
		for range 5 {
			if _, err := SimConfig(raw); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("SimConfig(%q) = %v, want %q", raw, err, want)
			}
		}
	}
	if cfg, err := SimConfig("sim://?prefix_cache_blocks=512&prefix_block_tokens=32"); err != nil ||
		cfg.PrefixCacheBlocks != 512 || cfg.PrefixBlockTokens != 32 {
		t.Errorf("prefix cache params: %+v, %v", cfg, err)
	}
	if cfg, err := SimConfig("sim://?max_batch=8&itl=5ms"); err != nil || cfg.MaxBatch != 8 || cfg.ITL != 5*time.Millisecond {
		t.Errorf("SimConfig = %+v, %v", cfg, err)
	}
}

// TestCheckHeader: headers from -H or a scenario's endpoint(headers=...)
// are written as given, so a line break would smuggle headers into every
// request; Validate refuses such a plan naming the parameter, never the
// value.
func TestCheckHeader(t *testing.T) {
	for _, h := range []transport.Header{{Name: "X-A", Value: "1\r\nEvil: 2"}, {Name: "X-A\nB", Value: "v"}, {Name: "", Value: "v"},
		{Name: "Ü", Value: "v"}, {Name: "X", Value: "a\x00"}} {
		if err := plan.CheckHeader(h.Name, h.Value); err == nil || strings.Contains(err.Error(), "Evil") {
			t.Errorf("%+v: %v", h, err)
		}
		e := &plan.Experiment{Name: "x", Load: plan.Load{Concurrency: 1}, Endpoint: plan.Endpoint{Headers: []transport.Header{h}}}
		var pe *plan.PlanError
		if err := Validate(e); !errors.As(err, &pe) || pe.Param != "headers" {
			t.Errorf("%+v: Validate = %v, want a PlanError on headers", h, err)
		}
	}
	for _, h := range []transport.Header{{Name: "Authorization", Value: "Bearer a:b"}, {Name: "X-Trace", Value: "caf\u00e9\t1"}, {Name: "x!#$%&'*+-.^_`|~9", Value: ""}} {
		if err := plan.CheckHeader(h.Name, h.Value); err != nil {
			t.Errorf("%+v: %v", h, err)
		}
	}
}

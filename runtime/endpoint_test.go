package runtime

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// bodyModels renders n entries for e and returns the model each body names.
func bodyModels(t *testing.T, e Endpoint, n int) []string {
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
	e := Endpoint{API: transport.Chat, Model: "a", Models: []string{"a", "b", "c"}}
	if got, want := bodyModels(t, e, 7), []string{"a", "b", "c", "a", "b", "c", "a"}; !slices.Equal(got, want) {
		t.Errorf("round robin: %v, want %v", got, want)
	}
	e.ModelSelection = RoundRobin
	if got := bodyModels(t, e, 3); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("explicit round_robin: %v", got)
	}
	single := Endpoint{API: transport.Completions, Model: "only"}
	if got := bodyModels(t, single, 3); !slices.Equal(got, []string{"only", "only", "only"}) {
		t.Errorf("one model: %v", got)
	}
}

// Random selection is a function of the seed: the same seed gives the
// same assignment, every model is used, and another seed changes it.
func TestRequestsRandomModelsFollowSeed(t *testing.T) {
	e := Endpoint{API: transport.Chat, Model: "a", Models: []string{"a", "b"}, ModelSelection: RandomModel, ModelSeed: 7}
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

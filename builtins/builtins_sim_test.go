package builtins

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport/sim"
)

// sim() takes `llmbench sim`'s stream-shape knobs too — flavor,
// context_tokens, merge_rate, strict_model — and they reach the
// simulator's config through the sim:// URL the plan carries.
func TestSimTakesTheFlavorKnobs(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(flavor = "ollama", context_tokens = 4096, merge_rate = 0.25, strict_model = True),
        synthetic(10, 8), concurrency(1), requests = 5)
`)
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := runtime.SimConfig(scen.Experiments[0].Endpoint.URL)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Flavor != sim.FlavorOllama || cfg.ContextTokens != 4096 || cfg.MergeRate != 0.25 || !cfg.StrictModel {
		t.Errorf("sim() config: flavor %q, context_tokens %d, merge_rate %v, strict_model %v", cfg.Flavor, cfg.ContextTokens, cfg.MergeRate, cfg.StrictModel)
	}
}

func TestSimRefusesAnUnknownFlavor(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(flavor = "tgi"), synthetic(10), concurrency(1))
`)
	le := loadErr(t, path, Options{})
	if le.Line != 3 || !strings.Contains(le.Msg, `flavor must be "vllm" or "ollama", got "tgi"`) {
		t.Errorf("got %s", le.Error())
	}
}

package plan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

func gate(t *testing.T, src string) metrics.Gate {
	t.Helper()
	g, err := metrics.ParseGate(src)
	if err == nil {
		err = g.PriceIn("EUR")
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The stored form is the plan's JSON: read back, it is the same plan
// (its dataset described only), written again byte for byte, and it holds
// no credential of the endpoint.
func TestStoredForm(t *testing.T) {
	budget, _ := NewErrorBudget(0.05)
	e := Experiment{
		Name: "chat", Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 8}},
		Endpoint: Endpoint{URL: "http://u:pw@h:8000/?api_key=s3cret", API: transport.Chat, Stream: true, Model: "m",
			Headers: []transport.Header{{Name: "Authorization", Value: "Bearer s3cret"}},
			Extra:   []transport.Field{{Key: "secret_field", Value: json.RawMessage(`"s3cret"`)}}, Timeout: time.Minute},
		Load: Load{Rate: 4, Arrival: Poisson, RampUp: 2 * time.Second}, Duration: 90 * time.Second, Warmup: 2, Repeats: 3, Seed: 7,
		Gates:   []metrics.Gate{gate(t, "ttft.p99 < 300ms @ component=chat"), gate(t, "cost_per_mtok < 2")},
		Goodput: []metrics.SLO{{Metric: metrics.GoodputTTFT, Value: 500}}, ErrorBudget: budget, CostPerHour: 2, Currency: "USD",
		Sweep: &Sweep{Search: &Search{Gate: gate(t, "ttft.p99 < 60ms"), Over: metrics.ParamRate, Lo: 1, Hi: 32, Precision: 0.05}},
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "pw@", "Bearer", "secret_field"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("stored plan holds %q: %s", secret, b)
		}
	}
	var back Experiment
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(back)
	if err != nil || string(again) != string(b) {
		t.Errorf("written again as\n%s\nwant\n%s", again, b)
	}
	if back.Dataset.String() != e.Dataset.String() || back.Load != e.Load || back.Duration != e.Duration ||
		back.Gates[0].Component != "chat" || back.Gates[1].Currency != "USD" || back.Sweep.Search.Gate.Source != "ttft.p99 < 60ms" ||
		back.ErrorBudget.MaxRate != 0.05 || back.Goodput[0] != e.Goodput[0] || back.Endpoint.Timeout != time.Minute {
		t.Errorf("read back as %+v", back)
	}
	if _, err := back.Dataset.(Described).Build(0); !errors.Is(err, ErrDescribedDataset) {
		t.Errorf("a stored dataset was drawn: %v", err)
	}
}

// Validate lists every problem of the plan at once, each naming its
// experiment() parameter, without running anything.
func TestValidateListsEveryProblem(t *testing.T) {
	e := Experiment{Name: "x", Endpoint: Endpoint{API: transport.Chat, Stream: false,
		Headers: []transport.Header{{Name: "X-Bad", Value: "a\r\nb"}}},
		Load: Load{Concurrency: 1}, Requests: 10, Gates: []metrics.Gate{gate(t, "ttft.p99 < 1s")},
		Sweep: &Sweep{Saturation: &Saturation{Over: metrics.ParamConcurrency, Start: 0, Factor: 2, Limit: 8}}}
	var params []string
	for _, err := range e.Validate() {
		var pe *PlanError
		if !errors.As(err, &pe) {
			t.Fatalf("%v is not a *PlanError", err)
		}
		params = append(params, pe.Param)
	}
	if strings.Join(params, " ") != "gates headers sweep" {
		t.Errorf("problems of %v, want gates, headers and sweep", params)
	}
	ok := Experiment{Name: "y", Endpoint: Endpoint{API: transport.Chat, Stream: true}, Load: Load{Concurrency: 1}, Requests: 10,
		Gates: []metrics.Gate{gate(t, "ttft.p99 < 1s")}}
	if errs := ok.Validate(); len(errs) != 0 {
		t.Errorf("a valid plan: %v", errs)
	}
}

// String is the plan as check prints it.
func TestString(t *testing.T) {
	e := Experiment{Name: "chat", Endpoint: Endpoint{URL: "sim://", API: transport.Chat, Stream: true, Model: "m", Timeout: DefaultTimeout,
		IdleTimeout: transport.DefaultIdleTimeout}, Dataset: Described("synthetic()"), Load: Load{Concurrency: 1}, Requests: 20,
		Sweep: &Sweep{Params: []SweepParam{{Name: metrics.ParamConcurrency, Values: []float64{1, 4}}}}, Baseline: "base",
		Gates: []metrics.Gate{gate(t, "cost_per_mtok < 2")}}
	want := `experiment "chat"
  endpoint:  endpoint(url="sim://", model="m", api="chat")
  dataset:   synthetic()
  traffic:   concurrency(1)
  per point: 20 requests, warmup 0, repeats 1
  points (2): concurrency1, concurrency4
  baseline:  base
  gate:      cost_per_mtok < 2 (EUR per Mtok)
`
	if got := e.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := e.Describe(false); !strings.Contains(got, "baseline:  base (not loaded: baseline gates skipped)") {
		t.Errorf("an unloaded baseline:\n%s", got)
	}
}

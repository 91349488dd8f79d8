package runtime

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// A plan saved with a point and read back is the plan that ran: gates,
// search gate, goodput, sweep and load survive; headers and the URL's
// credentials never reach the record.
func TestPointRecordRoundTrip(t *testing.T) {
	gate := func(src string) metrics.Gate {
		g, err := metrics.ParseGate(src)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	e := &plan.Experiment{
		Name: "chat", Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 8}},
		Endpoint: plan.Endpoint{URL: "http://user:pw@h:8000?api_key=s3cret", API: transport.Chat, Stream: true, Model: "m",
			Headers: []transport.Header{{Name: "Authorization", Value: "Bearer s3cret"}}, TokenCount: "usage"},
		Load: plan.Load{Concurrency: 1}, Requests: 20, Warmup: 2, Repeats: 3, Seed: 7, Duration: 0,
		Gates:   []metrics.Gate{gate("ttft.p99 < 300ms @ component=chat"), gate("error_rate < 1%")},
		Goodput: []metrics.SLO{{Metric: metrics.GoodputTTFT, Value: 500}},
		Sweep:   &plan.Sweep{Search: &plan.Search{Gate: gate("ttft.p99 < 60ms"), Over: metrics.ParamConcurrency, Lo: 1, Hi: 32, Precision: 0.05}},
	}
	key := PointKey{Experiment: "chat", Params: plan.Params{metrics.ParamConcurrency: 8}, Repeat: 2}
	rec := RecordOf("scen", e, key, 3)
	rec.Counting = Counting{Mode: ByUsage, Fallbacks: 1}
	s, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "Bearer", "pw@"} {
		if strings.Contains(s, secret) {
			t.Errorf("record holds %q: %s", secret, s)
		}
	}
	back, err := DecodePointRecord(s)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := back.Encode(); err != nil || again != s {
		t.Errorf("round trip: %v\n got %s\nwant %s", err, again, s)
	}
	if back.Point.Index != 3 || !reflect.DeepEqual(back.Point.Params, key.Params) || back.Counting != rec.Counting ||
		back.Plan.Endpoint.URL != "http://h:8000" || back.Plan.Endpoint.Headers != nil {
		t.Errorf("read back %+v", back)
	}
	got := &back.Plan
	if got.Name != "chat" || got.Load != e.Load || got.Requests != 20 || got.Repeats != 3 || got.Seed != 7 ||
		len(got.Gates) != 2 || got.Gates[0].Component != "chat" || got.Gates[0].Source != e.Gates[0].Source ||
		got.Sweep.Search.Gate.Source != "ttft.p99 < 60ms" || got.Goodput[0] != e.Goodput[0] ||
		got.Dataset.String() != e.Dataset.String() || got.Duration != time.Duration(0) {
		t.Errorf("rebuilt plan %+v", got)
	}
	if _, err := DecodePointRecord(`{"version": 99}`); err == nil {
		t.Error("a newer layout was accepted")
	}
}

// A record of version 1, whose plan was a mirror of the experiment with
// its own layout, reads into the same plan as the current layout stores.
func TestPointRecordVersion1(t *testing.T) {
	v1 := `{"version":1,"scenario":"scen","plan":{"name":"chat","endpoint":{"url":"http://h:8000","path":"/v1/chat","api":"chat","stream":true,"model":"m","token_count":"usage"},` +
		`"dataset":"synthetic(input_tokens = fixed(16))","traffic":{"rate":4,"arrival":"poisson","ramp_up_ms":2000},"duration_ms":1500,"warmup":2,` +
		`"steady_state":{"ci":0.05,"confidence":0.95,"min_requests":100},"repeats":3,"seed":7,` +
		`"sweep":{"search":{"gate":"ttft.p99 < 60ms","over":"request_rate","lo":1,"hi":32,"precision":0.05}},` +
		`"gates":["error_rate < 1%","cost_per_mtok < 2"],"goodput":[{"metric":"time_to_first_token","value":500}],"cost_per_hour":2,"currency":"USD",` +
		`"baseline":"old","tags":{"k":"v"},"error_budget":"5%","point_seeds":true},` +
		`"point":{"params":{"request_rate":4},"repeat":2,"index":3},"token_counting":{"mode":"usage","fallbacks":1},"partial":true}`
	r, err := DecodePointRecord(v1)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Plan
	if p.Name != "chat" || p.Endpoint.Path != "/v1/chat" || p.Endpoint.TokenCount != "usage" || p.Dataset.String() != "synthetic(input_tokens = fixed(16))" ||
		p.Load != (plan.Load{Rate: 4, Arrival: plan.Poisson, RampUp: 2 * time.Second}) || p.Duration != 1500*time.Millisecond || p.Warmup != 2 ||
		p.Steady == nil || p.Steady.MinRequests != 100 || p.Repeats != 3 || p.Seed != 7 || p.Sweep.Search.Gate.Source != "ttft.p99 < 60ms" ||
		len(p.Gates) != 2 || p.Gates[1].Currency != "USD" || p.Goodput[0].Value != 500 || p.CostPerHour != 2 || p.Baseline != "old" ||
		p.Tags["k"] != "v" || p.ErrorBudget.MaxRate != 0.05 || !p.PointSeeds {
		t.Errorf("version 1 plan read as %+v", p)
	}
	if r.Point.Index != 3 || r.Point.Repeat != 2 || r.Counting.Fallbacks != 1 || !r.Partial || r.Scenario != "scen" {
		t.Errorf("version 1 record read as %+v", r)
	}
	s, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodePointRecord(s)
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := again.Encode(); back != s || again.Version != PointRecordVersion {
		t.Errorf("version 1 written again as %s, read back as %s", s, back)
	}
}

package runtime

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
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
	e := &Experiment{
		Name: "chat", Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 8}},
		Endpoint: Endpoint{URL: "http://user:pw@h:8000?api_key=s3cret", API: transport.Chat, Stream: true, Model: "m",
			Headers: []transport.Header{{Name: "Authorization", Value: "Bearer s3cret"}}, TokenCount: "usage"},
		Load: Load{Concurrency: 1}, Requests: 20, Warmup: 2, Repeats: 3, Seed: 7, Duration: 0,
		Gates:   []metrics.Gate{gate("ttft.p99 < 300ms @ component=chat"), gate("error_rate < 1%")},
		Goodput: []metrics.SLO{{Metric: metrics.GoodputTTFT, Value: 500}},
		Sweep:   &Sweep{Search: &Search{Gate: gate("ttft.p99 < 60ms"), Over: metrics.ParamConcurrency, Lo: 1, Hi: 32, Precision: 0.05}},
	}
	key := PointKey{Experiment: "chat", Params: Params{metrics.ParamConcurrency: 8}, Repeat: 2}
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
	if !reflect.DeepEqual(back, rec) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, rec)
	}
	got, err := back.Plan.Experiment()
	if err != nil {
		t.Fatal(err)
	}
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

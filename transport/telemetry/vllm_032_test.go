package telemetry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// Two scrapes of a real vLLM 0.32.0 around 42 chat requests of 210 prompt
// and 64 generated tokens, all stopped at max_tokens (testdata/README.md):
// the reductions read, between them, the token totals (8,820 = 42 × 210
// prompt, 2,688 = 42 × 64 generated, 0 cached), the finish reasons (42
// length, 0 stop, the other reasons 0), the queue (0 running and 0
// waiting at both scrapes), 0 preemptions, a prefix-cache hit rate of 0
// and 42 requests in the latency histograms: the values of the two files'
// lines, differenced by hand.
func TestVLLM032Families(t *testing.T) {
	var samples []metrics.TelemetrySample
	for i, f := range []string{"vllm-0.32-before.txt", "vllm-0.32-after.txt"} {
		r, err := os.Open(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(r, "127.0.0.1:8000", int64(i)*20e9)
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s...)
	}
	srv := metrics.ReduceTelemetry(samples, metrics.TelemetryWindow{Start: 0, End: 20e9}).Server
	for what, c := range map[string]struct {
		got  metrics.TelemetryValue
		want float64
	}{
		"prompt tokens": {srv.PromptTokens, 8820}, "generation tokens": {srv.GenerationTokens, 2688},
		"cached prompt tokens": {srv.CachedPromptTokens, 0}, "preemptions": {srv.Preemptions, 0},
		"prefix-cache hit rate": {srv.PrefixCacheHitRate, 0},
	} {
		if !c.got.OK || c.got.Value != c.want {
			t.Errorf("%s = %+v, want %v", what, c.got, c.want)
		}
	}
	want := map[string]float64{"stop": 0, "length": 42, "abort": 0, "error": 0, "repetition": 0}
	if len(srv.FinishReasons) != len(want) {
		t.Fatalf("finish reasons %v, want %v", srv.FinishReasons, want)
	}
	for reason, n := range want {
		if got := srv.Finished(reason); got != n {
			t.Errorf("finished %s: %v, want %v", reason, got, n)
		}
	}
	if srv.Running == nil || srv.Running.Max != 0 || srv.Waiting == nil || srv.Waiting.Max != 0 {
		t.Errorf("running %+v, waiting %+v, want 0 at both scrapes", srv.Running, srv.Waiting)
	}
	if l := srv.Latency(metrics.LatencyRequestLatency); l == nil || !l.OK || l.Count != 42 {
		t.Errorf("request latency %+v, want 42 requests", l)
	}
}

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// A stages() run with --live-metrics otlp=URL streams its points while
// they run: a receiver decoding OTLP with its own protobuf types gets the
// point's requests labelled by experiment and point, and the last
// export's running count equals the run's measured requests.
func TestLiveMetricsStreamARun(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	exports := 0
	last := map[string]float64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &colmetrics.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		exports++
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					for _, dp := range m.GetSum().GetDataPoints() {
						labels := ""
						for _, a := range dp.Attributes {
							labels += a.Key + "=" + a.Value.GetStringValue() + ","
						}
						last[m.Name+"{"+labels+"}"] = float64(dp.GetAsInt())
					}
				}
			}
		}
		out, _ := proto.Marshal(&colmetrics.ExportMetricsServiceResponse{})
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	dir := t.TempDir()
	scenario := filepath.Join(dir, "staged.star")
	if err := os.WriteFile(scenario, []byte(`
def main(ctx):
    return experiment(name = "live", endpoint = sim(ttft = "5ms", itl = "1ms"),
        dataset = synthetic(input_tokens = fixed(20), output_tokens = fixed(8)),
        traffic = stages([("600ms", 4, "up"), ("600ms", 4, "hold")]))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", scenario, "--no-plots", "--live-metrics", "otlp="+srv.URL, "--live-metrics-interval", "200ms")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var summary struct {
		Experiments []struct {
			Points []struct {
				Requests struct{ Completed, Failed int } `json:"requests"`
			} `json:"points"`
		} `json:"experiments"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil || json.Unmarshal(b, &summary) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	want := summary.Experiments[0].Points[0].Requests.Completed + summary.Experiments[0].Points[0].Requests.Failed
	mu.Lock()
	defer mu.Unlock()
	got := last["llmbench.requests{experiment=live,point=concurrency4,}"]
	if exports < 3 || want == 0 || got != float64(want) {
		t.Errorf("%d exports, last llmbench.requests %v (all %v), want at least 3 exports and %d", exports, got, last, want)
	}
	if strings.Contains(r.stderr, "--live-metrics:") {
		t.Errorf("export errors: %s", r.stderr)
	}
}

package livemetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/llmbench/llmbench/metrics"
)

// sample is a sample with known values: 12 requests, 2 errors in the
// interval; totals 30 and 3.
func sample(at time.Time) metrics.LiveSample {
	return metrics.LiveSample{At: at, Interval: 5 * time.Second, Requests: 12, Errors: 2, TotalRequests: 30, TotalErrors: 3,
		RequestThroughput: 2.4, OutputChunkThroughput: 96.5,
		TTFT: &metrics.LiveQuantiles{P50: 0.021, P90: 0.03, P99: 0.045}, ITL: &metrics.LiveQuantiles{P50: 0.006, P90: 0.007, P99: 0.009}}
}

// TestPrometheusRemoteWriteReadBack pushes a sample to a real Prometheus
// (Debian's prometheus package, remote-write receiver on) and reads the
// series back through its query API.
func TestPrometheusRemoteWriteReadBack(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	switch {
	case err != nil && os.Getenv("CI") == "true":
		t.Fatalf("no prometheus binary; under CI=true .ci/run installs it (apt-get install prometheus)")
	case err != nil:
		t.Skip("no prometheus binary (apt-get install prometheus) to receive remote write")
	}
	addr := freeAddr(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://" + addr
	waitReady(t, base+"/-/ready")

	exp, err := New(context.Background(), []Target{{Kind: PrometheusRW, URL: base + "/api/v1/write"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Push(context.Background(), Labels{Experiment: "chat", Point: "concurrency8"}, sample(time.Now())); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{
		`llmbench_requests_total{experiment="chat",point="concurrency8"}`:     "30",
		`llmbench_errors_total{experiment="chat"}`:                            "3",
		`llmbench_interval_requests{point="concurrency8"}`:                    "12",
		`llmbench_ttft_seconds{quantile="0.99",experiment="chat"}`:            "0.045",
		`llmbench_itl_seconds{quantile="0.5"}`:                                "0.006",
		`llmbench_output_chunk_throughput{experiment="chat"}`:                 "96.5",
		`llmbench_request_throughput{experiment="chat",point="concurrency8"}`: "2.4",
	} {
		if got := promQuery(t, base, query); got != want {
			t.Errorf("%s = %q, want %s", query, got, want)
		}
	}
}

// TestPrometheusRemoteWriteRefusalIsAnError: a receiver that refuses
// (remote write off answers 404) is an error naming the target.
func TestPrometheusRemoteWriteRefusalIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	exp, _ := New(context.Background(), []Target{{Kind: PrometheusRW, URL: srv.URL + "/api/v1/write"}})
	err := exp.Push(context.Background(), Labels{"e", "p"}, sample(time.Now()))
	if err == nil || err.Error() != fmt.Sprintf("prometheus-rw=%s/api/v1/write: HTTP 404: 404 page not found", srv.URL) {
		t.Errorf("got %v", err)
	}
}

// TestOTLPReadBack: the SDK's exporter posts to a receiver that decodes
// the request with OTLP's own protobuf types.
func TestOTLPReadBack(t *testing.T) {
	var mu sync.Mutex
	var got []*colmetrics.ExportMetricsServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &colmetrics.ExportMetricsServiceRequest{}
		if r.URL.Path != "/v1/metrics" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		out, _ := proto.Marshal(&colmetrics.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	target, err := ParseTarget("otlp=" + srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := New(context.Background(), []Target{target})
	if err != nil {
		t.Fatal(err)
	}
	l := Labels{Experiment: "chat", Point: "rate4"}
	for range 2 {
		if err := exp.Push(context.Background(), l, sample(time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	// A repeat of the point (a new run) counts from 0 again.
	repeat := sample(time.Now())
	repeat.Started = time.Unix(1e9, 0)
	if err := exp.Push(context.Background(), l, repeat); err != nil {
		t.Fatal(err)
	}
	if err := exp.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("%d exports, want 3", len(got))
	}
	if v := otlpValues(t, got[2])["llmbench.requests"]; v != 12 {
		t.Errorf("a repeat's llmbench.requests = %v, want 12 (its own)", v)
	}
	values := otlpValues(t, got[1])
	// The counters add each interval (12 + 12); gauges hold the last.
	for k, want := range map[string]float64{"llmbench.requests": 24, "llmbench.errors": 4, "llmbench.interval.requests": 12,
		"llmbench.ttft{0.99}": 0.045, "llmbench.itl{0.5}": 0.006, "llmbench.request_throughput": 2.4, "llmbench.output_chunk_throughput": 96.5} {
		if values[k] != want {
			t.Errorf("%s = %v, want %v (all: %v)", k, values[k], want, values)
		}
	}
}

// otlpValues are an export's data points by metric name (and quantile).
func otlpValues(t *testing.T, req *colmetrics.ExportMetricsServiceRequest) map[string]float64 {
	values := map[string]float64{}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, dp := range append(m.GetSum().GetDataPoints(), m.GetGauge().GetDataPoints()...) {
					key := m.Name
					attrs := map[string]string{}
					for _, a := range dp.Attributes {
						attrs[a.Key] = a.Value.GetStringValue()
					}
					if attrs["experiment"] != "chat" || attrs["point"] != "rate4" {
						t.Errorf("%s: attributes %v", m.Name, attrs)
					}
					if q := attrs["quantile"]; q != "" {
						key += "{" + q + "}"
					}
					values[key] = dp.GetAsDouble() + float64(dp.GetAsInt())
				}
			}
		}
	}
	return values
}

func TestParseTarget(t *testing.T) {
	if tg, err := ParseTarget("otlp=http://127.0.0.1:4318"); err != nil || tg.URL != "http://127.0.0.1:4318/v1/metrics" {
		t.Errorf("otlp without a path: %+v, %v", tg, err)
	}
	for _, bad := range []string{"influx=http://x", "prometheus-rw", "prometheus-rw=ftp://x/api", "otlp=:4318"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitReady polls until Prometheus says it is ready (it takes about a
// second to open its storage).
func waitReady(t *testing.T, u string) {
	for range 300 {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("prometheus did not become ready in 30 s")
}

// promQuery is an instant query's single value, "" when it found none.
func promQuery(t *testing.T, base, q string) string {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.Result) != 1 {
		return ""
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return s
}

// A target's credentials never reach a message, even from net/http's
// errors, which quote the URL.
func TestCredentialsStayOutOfErrors(t *testing.T) {
	exp, _ := New(context.Background(), []Target{{Kind: PrometheusRW, URL: "http://user:s3cret@127.0.0.1:1/api/v1/write"}})
	err := exp.Push(context.Background(), Labels{"e", "p"}, sample(time.Now()))
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "prometheus-rw=http://redacted@127.0.0.1:1/api/v1/write") {
		t.Errorf("got %v", err)
	}
}

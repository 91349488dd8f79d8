package telemetry

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// The fixtures are expositions of real exporters, composed from their
// public source and documentation (testdata/README.md says from where).
// Each is served over HTTP and scraped as a run would, then checked two
// ways: line by line against an independent reading of the text, and
// for the series the reductions need.
func TestRealExpositions(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, samples []metrics.TelemetrySample)
	}{
		{"dcgm-exporter-8xh100.txt", checkDCGM},
		{"dcgm-exporter-readme.txt", checkDCGMReadme},
		{"vllm.txt", checkVLLM},
		{"sglang.txt", checkSGLang},
		{"tgi.txt", checkTGI},
		{"tensorrt-llm.txt", checkTRTLLM},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			samples := scrapeOnce(t, body)
			want := readExposition(t, string(body))
			if len(samples) != len(want) {
				t.Errorf("%d samples, the text has %d sample lines", len(samples), len(want))
			}
			for _, s := range samples {
				v, ok := want[seriesKey(s.Name, s.Labels)]
				if !ok {
					t.Errorf("sample not in the text: %s", line(s))
				} else if v != s.Value && !(math.IsNaN(v) && math.IsNaN(s.Value)) {
					t.Errorf("%s: text says %g", line(s), v)
				}
			}
			tt.check(t, samples)
		})
	}
}

// scrapeOnce serves body as an exporter would and returns one scrape.
func scrapeOnce(t *testing.T, body []byte) []metrics.TelemetrySample {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Accept"), "text/plain;version=0.0.4") {
			http.Error(w, "wants the text format", http.StatusNotAcceptable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	s, c, _ := newTestScraper(t, []string{srv.URL + "/metrics"}, nil)
	if warnings := s.Probe(context.Background()); len(warnings) > 0 {
		t.Fatal(warnings)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a scrape", func() bool { return c.count() >= 1 })
	r := s.Stop()[0]
	if r.Failures != 0 {
		t.Fatalf("failures: %s", r.FirstError)
	}
	return c.bySource(r.Source)[0]
}

var (
	sampleLine = regexp.MustCompile(`^([^\s{]+)(?:\{(.*)\})?\s+(\S+)$`)
	labelPair  = regexp.MustCompile(`\s*([^=\s,]+)="((?:[^"\\]|\\.)*)"\s*,?`)
)

// readExposition reads the sample lines with a regular expression, not
// expfmt, into series key → value, so the test does not check the parser
// against itself.
func readExposition(t *testing.T, text string) map[string]float64 {
	out := map[string]float64{}
	for _, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not a sample line: %q", l)
		}
		var labels []metrics.Label
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			v := strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(p[2])
			labels = append(labels, metrics.Label{Name: p[1], Value: v})
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		key := seriesKey(m[1], labels)
		if _, dup := out[key]; dup {
			t.Fatalf("series twice in the fixture: %s", key)
		}
		out[key] = v
	}
	return out
}

// seriesKey names a series by its name and sorted labels, with le and
// quantile compared as numbers (the text may say "1.0" where Parse says
// "1").
func seriesKey(name string, labels []metrics.Label) string {
	ls := slices.Clone(labels)
	for i, l := range ls {
		if l.Name == "le" || l.Name == "quantile" {
			if f, err := strconv.ParseFloat(l.Value, 64); err == nil {
				ls[i].Value = formatBound(f)
			}
		}
	}
	slices.SortFunc(ls, func(a, b metrics.Label) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString(name)
	for _, l := range ls {
		b.WriteString("\x00" + l.Name + "=" + l.Value)
	}
	return b.String()
}

func checkDCGM(t *testing.T, samples []metrics.TelemetrySample) {
	if len(samples) != 25*8 {
		t.Errorf("%d samples, want 25 fields × 8 GPUs", len(samples))
	}
	gpus := map[string]bool{}
	for _, s := range samples {
		var names []string
		for _, l := range s.Labels {
			names = append(names, l.Name)
		}
		want := []string{"DCGM_FI_DRIVER_VERSION", "Hostname", "UUID", "device", "gpu", "modelName", "pci_bus_id"}
		if s.Name == "DCGM_FI_DEV_XID_ERRORS" {
			want = append(want, "err_code", "err_msg")
			slices.Sort(want)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("%s labels %v, want %v", s.Name, names, want)
		}
		if s.Label("modelName") != "NVIDIA H100 80GB HBM3" || s.Label("DCGM_FI_DRIVER_VERSION") != "570.124.06" {
			t.Errorf("labels %v", s.Labels)
		}
		gpus[s.Label("gpu")+"/"+s.Label("UUID")] = true
	}
	if len(gpus) != 8 {
		t.Errorf("%d distinct GPUs: %v", len(gpus), gpus)
	}
	power, _ := sampleNamed(samples, "DCGM_FI_DEV_POWER_USAGE", "gpu", "3", "device", "nvidia3")
	energy, _ := sampleNamed(samples, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu", "3")
	used, _ := sampleNamed(samples, "DCGM_FI_DEV_FB_USED", "gpu", "3")
	free, _ := sampleNamed(samples, "DCGM_FI_DEV_FB_FREE", "gpu", "3")
	if power.Value < 250 || power.Value > 700 || energy.Value < 8e10 || used.Value+free.Value > 81559 {
		t.Errorf("GPU 3: power %g W, energy %g mJ, fb used %g + free %g MiB", power.Value, energy.Value, used.Value, free.Value)
	}
	if xid, _ := sampleNamed(samples, "DCGM_FI_DEV_XID_ERRORS", "gpu", "0"); xid.Label("err_msg") != "No Error" {
		t.Errorf("xid %v", xid)
	}
}

// dcgm-exporter's README shows a space after each label comma and DCGM's
// "not supported" int64 sentinel as a value; both must parse.
func checkDCGMReadme(t *testing.T, samples []metrics.TelemetrySample) {
	temp, ok := sampleNamed(samples, "DCGM_FI_DEV_MEMORY_TEMP", "gpu", "0", "UUID", "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52")
	if !ok || temp.Value != 9223372036854775794 {
		t.Errorf("memory temp %v", temp)
	}
	if clock, _ := sampleNamed(samples, "DCGM_FI_DEV_SM_CLOCK"); clock.Value != 139 {
		t.Errorf("sm clock %v", clock)
	}
}

// checkHistogram checks one histogram series: buckets cumulative and
// ending at +Inf = _count, and _sum present.
func checkHistogram(t *testing.T, samples []metrics.TelemetrySample, name string, nBuckets int, labels ...string) {
	t.Helper()
	var buckets []metrics.TelemetrySample
	for _, s := range samples {
		if s.Name == name+"_bucket" {
			if _, ok := sampleNamed([]metrics.TelemetrySample{s}, s.Name, labels...); ok {
				buckets = append(buckets, s)
			}
		}
	}
	count, okc := sampleNamed(samples, name+"_count", labels...)
	_, oks := sampleNamed(samples, name+"_sum", labels...)
	if len(buckets) != nBuckets || !okc || !oks {
		t.Fatalf("%s: %d buckets (want %d), count %v, sum %v", name, len(buckets), nBuckets, okc, oks)
	}
	last := buckets[len(buckets)-1]
	if last.Label("le") != "+Inf" || last.Value != count.Value {
		t.Errorf("%s: last bucket %s, count %g", name, line(last), count.Value)
	}
	for i := 1; i < len(buckets); i++ {
		if buckets[i].Value < buckets[i-1].Value {
			t.Errorf("%s: buckets not cumulative at %s", name, line(buckets[i]))
		}
	}
}

func checkVLLM(t *testing.T, samples []metrics.TelemetrySample) {
	m := []string{"model_name", "meta-llama/Llama-3.1-8B-Instruct", "engine", "0"}
	for name, want := range map[string]float64{
		"vllm:num_requests_running":    48,
		"vllm:num_requests_waiting":    7,
		"vllm:kv_cache_usage_perc":     0.6418129301643371,
		"vllm:num_preemptions_total":   3,
		"process_virtual_memory_bytes": 5.4917124096e10, // prometheus_client writes e+010
	} {
		s, ok := sampleNamed(samples, name)
		if !ok || s.Value != want {
			t.Errorf("%s = %v (found %v), want %g", name, s, ok, want)
		}
	}
	queries, _ := sampleNamed(samples, "vllm:prefix_cache_queries_total", m...)
	hits, _ := sampleNamed(samples, "vllm:prefix_cache_hits_total", m...)
	if queries.Value == 0 || hits.Value <= 0 || hits.Value > queries.Value {
		t.Errorf("prefix cache hits %g of %g queries", hits.Value, queries.Value)
	}
	if s, _ := sampleNamed(samples, "vllm:request_success_total", append(m, "finished_reason", "length")...); s.Value != 69 {
		t.Errorf("request_success{length} = %v", s)
	}
	checkHistogram(t, samples, "vllm:time_to_first_token_seconds", 23, m...)
	checkHistogram(t, samples, "vllm:inter_token_latency_seconds", 20, m...)
	checkHistogram(t, samples, "vllm:e2e_request_latency_seconds", 22, m...)
	checkHistogram(t, samples, "vllm:request_queue_time_seconds", 22, m...)
	checkHistogram(t, samples, "vllm:request_prefill_time_seconds", 22, m...)
	checkHistogram(t, samples, "vllm:request_decode_time_seconds", 22, m...)
	checkHistogram(t, samples, "vllm:request_prompt_tokens", 17, m...)
	checkHistogram(t, samples, "http_request_duration_seconds", 4, "handler", "/v1/chat/completions", "method", "POST")
	bucket, _ := sampleNamed(samples, "vllm:time_to_first_token_seconds_bucket", append(m, "le", "1")...)
	if got := []string{bucket.Labels[0].Name, bucket.Labels[1].Name, bucket.Labels[2].Name}; !slices.Equal(got, []string{"engine", "le", "model_name"}) {
		t.Errorf("bucket labels %v", bucket.Labels)
	}
	if created, ok := sampleNamed(samples, "vllm:time_to_first_token_seconds_created", m...); !ok || created.Value < 1.7e9 {
		t.Errorf("_created %v", created)
	}
	// prometheus_fastapi_instrumentator's summaries have no quantiles.
	if _, ok := sampleNamed(samples, "http_request_size_bytes_count", "handler", "/v1/chat/completions"); !ok {
		t.Error("no http_request_size_bytes_count")
	}
	if _, ok := sampleNamed(samples, "http_request_size_bytes"); ok {
		t.Error("a quantile sample from a summary without quantiles")
	}
}

func checkSGLang(t *testing.T, samples []metrics.TelemetrySample) {
	if s, _ := sampleNamed(samples, "sglang:num_running_reqs", "tp_rank", "0"); s.Value != 31 {
		t.Errorf("sglang:num_running_reqs = %v", s)
	}
	if s, _ := sampleNamed(samples, "sglang:num_queue_reqs"); s.Value != 4 {
		t.Errorf("sglang:num_queue_reqs = %v", s)
	}
	if s, ok := sampleNamed(samples, "sglang:queue_time_seconds_bucket", "le", "0"); !ok || s.Value != 0 {
		t.Errorf("the le=0 bucket: %v", s)
	}
	for _, name := range []string{"sglang:time_to_first_token_seconds", "sglang:inter_token_latency_seconds", "sglang:e2e_request_latency_seconds"} {
		if _, ok := sampleNamed(samples, name+"_count"); !ok {
			t.Errorf("no %s_count", name)
		}
	}
	checkHistogram(t, samples, "sglang:time_to_first_token_seconds", 19)
	if _, ok := sampleNamed(samples, "sglang:cache_hit_rate"); !ok {
		t.Error("no sglang:cache_hit_rate")
	}
}

func checkTGI(t *testing.T, samples []metrics.TelemetrySample) {
	if s, _ := sampleNamed(samples, "tgi_request_count"); s.Value != 300 || len(s.Labels) != 0 {
		t.Errorf("tgi_request_count = %v", s)
	}
	if s, _ := sampleNamed(samples, "tgi_queue_size"); s.Value != 3 {
		t.Errorf("tgi_queue_size = %v", s)
	}
	checkHistogram(t, samples, "tgi_request_queue_duration", 36)
	checkHistogram(t, samples, "tgi_batch_forward_duration", 36, "method", "decode")
	var quantiles []string
	for _, s := range samples {
		if s.Name == "tgi_request_skipped_tokens" {
			quantiles = append(quantiles, s.Label("quantile"))
		}
	}
	if !slices.Equal(quantiles, []string{"0", "0.5", "0.9", "0.95", "0.99", "0.999", "1"}) {
		t.Errorf("summary quantiles %v", quantiles)
	}
	if s, _ := sampleNamed(samples, "tgi_request_skipped_tokens_count"); s.Value != 300 {
		t.Errorf("summary count %v", s)
	}
}

func checkTRTLLM(t *testing.T, samples []metrics.TelemetrySample) {
	m := []string{"model_name", "meta-llama/Llama-3.1-8B-Instruct", "engine_type", "trtllm"}
	for _, name := range []string{"trtllm_num_requests_running", "trtllm_kv_cache_utilization", "trtllm_prompt_tokens_total"} {
		if _, ok := sampleNamed(samples, name, m...); !ok {
			t.Errorf("no %s", name)
		}
	}
	checkHistogram(t, samples, "trtllm_time_to_first_token_seconds", 23, m...)
	checkHistogram(t, samples, "trtllm_request_queue_time_seconds", 22, m...)
}

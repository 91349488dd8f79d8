package sim

import (
	"bufio"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

var (
	sampleLine  = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (\S+)$`)
	commentLine = regexp.MustCompile(`^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (gauge|counter|histogram))$`)
)

type sample struct {
	labels string
	value  float64
}

// scrape fetches /metrics and parses every line as Prometheus text.
func scrape(t *testing.T, s *Server) map[string]sample {
	t.Helper()
	resp, err := http.Get(s.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]sample{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if commentLine.MatchString(line) {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a Prometheus text line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out[m[1]] = sample{m[2], v}
	}
	return out
}

func TestMetricsFollowTheBatch(t *testing.T) {
	s := startSim(t, func(c *Config) { c.Model = `we"ird\model` })
	idle := scrape(t, s)
	checkMetricNames(t, idle)
	if m, ok := idle[metrics.SimulatedMarker]; !ok || m.value != 1 || m.labels != "" {
		t.Errorf("%s = %+v, want 1 without labels: a scraper must know the page is made up", metrics.SimulatedMarker, m)
	}
	if l := idle["vllm:num_requests_running"].labels; l != `model_name="we\"ird\\model"` {
		t.Errorf("vLLM labels = %s", l)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		timeStream(s.URL()+"/v1/chat/completions", `{"messages":[{"content":"a b"}],"max_tokens":200,"stream":true}`)
	})
	waitFor(t, "the stream to start", func() bool { return s.batch.state().running == 1 })
	busy := scrape(t, s)
	wg.Wait()
	time.Sleep(5 * time.Millisecond) // ≥ 70 W for 5 ms adds ≥ 350 mJ
	after := scrape(t, s)

	if busy["vllm:num_requests_running"].value != 1 || busy["vllm:kv_cache_usage_perc"].value != 1.0/64 {
		t.Errorf("busy vLLM gauges: %+v %+v", busy["vllm:num_requests_running"], busy["vllm:kv_cache_usage_perc"])
	}
	for _, name := range []string{"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_FB_USED"} {
		if busy[name].value <= idle[name].value {
			t.Errorf("%s busy %g <= idle %g", name, busy[name].value, idle[name].value)
		}
	}
	energy := "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	if !(idle[energy].value < busy[energy].value && busy[energy].value < after[energy].value) {
		t.Errorf("energy counter not increasing: %g %g %g", idle[energy].value, busy[energy].value, after[energy].value)
	}
	st := s.Stats()
	if after["vllm:generation_tokens_total"].value != 200 || after["vllm:prompt_tokens_total"].value != 2 ||
		st.CompletionTokens != 200 || st.PromptTokens != 2 {
		t.Errorf("token counters %+v %+v, stats %+v", after["vllm:generation_tokens_total"], after["vllm:prompt_tokens_total"], st)
	}
	// The finished request is in the latency histograms: one TTFT, 199
	// token gaps, each at least the configured ITL on average.
	if idle["vllm:time_to_first_token_seconds_count"].value != 0 || after["vllm:time_to_first_token_seconds_count"].value != 1 ||
		after["vllm:inter_token_latency_seconds_count"].value != 199 || after["vllm:e2e_request_latency_seconds_count"].value != 1 {
		t.Errorf("histogram counts: ttft %v, itl %v, e2e %v", after["vllm:time_to_first_token_seconds_count"],
			after["vllm:inter_token_latency_seconds_count"], after["vllm:e2e_request_latency_seconds_count"])
	}
	if mean := after["vllm:inter_token_latency_seconds_sum"].value / 199; mean < s.cfg.ITL.Seconds()*0.9 {
		t.Errorf("mean server ITL %v s below the configured %v", mean, s.cfg.ITL)
	}
}

func checkMetricNames(t *testing.T, m map[string]sample) {
	t.Helper()
	for _, name := range []string{
		"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_POWER_MGMT_LIMIT", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
		"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_DEV_SM_CLOCK",
		"DCGM_FI_DEV_GPU_TEMP",
	} {
		l := m[name].labels
		for _, want := range []string{`gpu="0"`, `UUID="GPU-`, `modelName="`, `Hostname="`} {
			if !strings.Contains(l, want) {
				t.Errorf("%s labels %q lack %s", name, l, want)
			}
		}
	}
	for _, name := range []string{
		"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:prefix_cache_hits_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total",
	} {
		if _, ok := m[name]; !ok {
			t.Errorf("missing %s", name)
		}
	}
}

func TestGPUUUIDIsStablePerSeed(t *testing.T) {
	if a, b := gpuUUID(1), gpuUUID(1); a != b || a == gpuUUID(2) {
		t.Errorf("UUIDs: %s %s", gpuUUID(1), gpuUUID(2))
	}
	if !regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(gpuUUID(1)) {
		t.Errorf("UUID %s has the wrong shape", gpuUUID(1))
	}
}

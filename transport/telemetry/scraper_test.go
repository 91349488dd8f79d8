package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

func TestNextTick(t *testing.T) {
	const start, iv = 1000, 10
	tests := []struct {
		now, tick, next int64
		skipped         int
	}{
		{now: 1003, tick: 0, next: 1, skipped: 0}, // quick scrape: the next tick
		{now: 1019, tick: 1, next: 2, skipped: 0}, // finished just before tick 2
		{now: 1035, tick: 1, next: 4, skipped: 2}, // slow: ticks 2 and 3 passed over
		{now: 1000, tick: 0, next: 1, skipped: 0}, // clock did not move
		{now: 990, tick: 5, next: 6, skipped: 0},  // never backwards
		{now: 1000 + 10*iv, tick: 3, next: 11, skipped: 7},
	}
	for _, tt := range tests {
		next, skipped := nextTick(start, tt.now, iv, tt.tick)
		if next != tt.next || skipped != tt.skipped {
			t.Errorf("nextTick(now=%d, tick=%d) = %d, %d; want %d, %d", tt.now, tt.tick, next, skipped, tt.next, tt.skipped)
		}
	}
}

func TestConfig(t *testing.T) {
	clock := transport.NewClock()
	sink := func([]metrics.TelemetrySample) {}
	errs := Config{URLs: []string{"ftp://h/m", "http://u:pw@ho st/", "http://a/m", "http://a/m", "http:///m"},
		Interval: time.Millisecond, Timeout: -1}.Validate()
	text := ""
	for _, e := range errs {
		text += e.Error() + "\n"
	}
	for _, want := range []string{`scheme "ftp"`, "URL 2: not a URL", "http://a/m is listed twice", "URL 5: no host",
		"below the 10ms minimum", "timeouts must be positive", "no clock", "no sink"} {
		if !strings.Contains(text, want) {
			t.Errorf("errors lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "pw") {
		t.Errorf("an error quotes a URL's password:\n%s", text)
	}

	for _, tt := range []struct{ interval, timeout time.Duration }{
		{0, 3330 * time.Millisecond}, // 10 × 333 ms
		{time.Second, 5 * time.Second},
		{50 * time.Millisecond, 500 * time.Millisecond},
	} {
		s, err := New(Config{URLs: []string{"http://127.0.0.1:9400/metrics"}, Interval: tt.interval, Clock: clock, Sink: sink})
		if err != nil {
			t.Fatal(err)
		}
		if s.Timeout() != tt.timeout || (tt.interval == 0 && s.Interval() != DefaultInterval) {
			t.Errorf("interval %v: timeout %v (want %v), interval %v", tt.interval, s.Timeout(), tt.timeout, s.Interval())
		}
	}
}

func TestLifecycleMisuse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("a 1\n")) }))
	defer srv.Close()
	s, c, _ := newTestScraper(t, []string{srv.URL}, nil)
	if s.Stop() != nil {
		t.Error("Stop without Start returned reports")
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Start(context.Background()) == nil {
		t.Error("a second Start did not fail")
	}
	if errs := s.Probe(context.Background()); len(errs) != 1 {
		t.Errorf("Probe while scraping: %v", errs)
	}
	waitUntil(t, "a scrape", func() bool { return c.count() >= 1 })
	first := s.Stop()
	// A second point: Start again on the same scraper, fresh report.
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a scrape of the second point", func() bool { return c.count() >= first[0].Successes+1 })
	second := s.Stop()
	if len(second) != 1 || second[0].Start < first[0].End || second[0].Successes == 0 {
		t.Errorf("second point report %+v after %+v", second, first)
	}
}

// The simulator's /metrics is what a run against it scrapes: fake DCGM
// fields and vLLM gauges on one page.
func TestScrapeSimulator(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Model = "sim-model"
	srv, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	s, c, _ := newTestScraper(t, []string{srv.URL() + "/metrics"}, nil)
	if warnings := s.Probe(context.Background()); len(warnings) > 0 {
		t.Fatalf("probe: %v", warnings)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "three scrapes", func() bool { return c.count() >= 3 })
	reports := s.Stop()

	source := strings.TrimPrefix(srv.URL(), "http://")
	r := reports[0]
	if r.URL != srv.URL()+"/metrics" || r.Source != source || r.Successes < 3 || r.Failures != 0 || r.FirstError != "" {
		t.Errorf("report %+v", r)
	}
	scrapes := c.bySource(source)
	if len(scrapes) != r.Successes || r.Samples != len(scrapes)*len(scrapes[0]) {
		t.Errorf("%d scrapes sunk, report says %d successes and %d samples", len(scrapes), r.Successes, r.Samples)
	}
	last := r.Start
	for _, scrape := range scrapes {
		if at := scrape[0].Time; at < last || at > r.End {
			t.Errorf("scrape stamped %d outside [%d, %d] or before the previous", at, last, r.End)
		} else {
			last = at
		}
	}
	samples := scrapes[0]
	power, ok := sampleNamed(samples, "DCGM_FI_DEV_POWER_USAGE", "gpu", "0", "device", "nvidia0",
		"modelName", "NVIDIA H100 80GB HBM3", "Hostname", "llmbench-sim")
	if !ok || power.Value != 70 || !strings.HasPrefix(power.Label("UUID"), "GPU-") {
		t.Errorf("idle power sample %+v (found %v)", power, ok)
	}
	if _, ok := sampleNamed(samples, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu", "0"); !ok {
		t.Error("no energy counter")
	}
	if m, ok := sampleNamed(samples, metrics.SimulatedMarker); !ok || m.Value != 1 || len(m.Labels) != 0 {
		t.Errorf("%s = %+v (found %v): the page must say it is made up", metrics.SimulatedMarker, m, ok)
	}
	running, ok := sampleNamed(samples, "vllm:num_requests_running", "model_name", "sim-model")
	if !ok || running.Value != 0 || len(running.Labels) != 1 {
		t.Errorf("vllm:num_requests_running = %+v (found %v)", running, ok)
	}
	for _, name := range []string{"vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:prefix_cache_hits_total",
		"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED"} {
		if _, ok := sampleNamed(samples, name); !ok {
			t.Errorf("no %s", name)
		}
	}
}

// A scrape never overlaps its predecessor: with a server slower than the
// interval, the ticks in between are skipped and counted.
func TestSlowServerSkipsTicksWithoutOverlap(t *testing.T) {
	var inFlight, most, served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(70 * time.Millisecond) // more than three 20 ms intervals
		served.Add(1)
		_, _ = w.Write([]byte("up 1\n"))
	}))
	defer srv.Close()
	s, c, _ := newTestScraper(t, []string{srv.URL}, nil)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "three slow scrapes", func() bool { return c.count() >= 3 })
	r := s.Stop()[0]
	if most.Load() != 1 {
		t.Errorf("%d scrapes of one URL ran at once", most.Load())
	}
	if r.Successes < 3 || r.Skipped < 2*r.Successes || r.Failures != 0 {
		t.Errorf("successes %d, skipped %d, failures %d: each 70 ms scrape should pass over at least two 20 ms ticks",
			r.Successes, r.Skipped, r.Failures)
	}
}

// Each URL has its own goroutine: one that hangs does not hold up another.
func TestHungURLDoesNotDelayTheOthers(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("up 1\n")) }))
	defer fast.Close()
	s, c, _ := newTestScraper(t, []string{hung.URL, fast.URL}, func(c *Config) { c.Timeout = time.Minute })
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The hung URL's first scrape cannot end before the minute is up, yet
	// the fast one goes on being scraped.
	waitUntil(t, "five scrapes of the fast URL", func() bool { return c.count() >= 5 })
	reports := s.Stop()
	if reports[0].Attempts != 0 || reports[1].Successes < 5 {
		t.Errorf("hung: %+v\nfast: %+v", reports[0], reports[1])
	}
	if len(reports[0].Gaps) != 1 {
		t.Errorf("the hung URL shows no gap: %+v", reports[0].Gaps)
	}
}

// Misbehaving servers: each bad answer is a counted failure with the
// reason in words, never a hang or a panic, and Probe drops them.
func TestMisbehavingServers(t *testing.T) {
	stop := make(chan struct{})
	var hits sync.Map // path → *atomic.Int32
	count := func(path string) *atomic.Int32 {
		v, _ := hits.LoadOrStore(path, new(atomic.Int32))
		return v.(*atomic.Int32)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		count(r.URL.Path).Add(1)
		select { // beyond any timeout: until the client gives up
		case <-r.Context().Done():
		case <-stop:
		}
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) {
		count(r.URL.Path).Add(1)
		http.Error(w, "engine dead", http.StatusInternalServerError)
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) {
		count(r.URL.Path).Add(1)
		_, _ = w.Write([]byte("<html><body>metrics are disabled</body></html>\n"))
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		count(r.URL.Path).Add(1)
		chunk := []byte(strings.Repeat("up{job=\"x\"} 1\n", 256))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		count(r.URL.Path).Add(1)
		w.(http.Flusher).Flush()
		for r.Context().Err() == nil {
			if _, err := w.Write([]byte("u")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(stop)

	want := map[string]string{
		"/slow":    "no complete answer within 150ms",
		"/500":     "HTTP 500 Internal Server Error",
		"/garbage": "parse: text format parsing error in line 1",
		"/endless": "body exceeds the 64 KiB limit",
		"/trickle": "no complete answer within 150ms",
	}
	var urls []string
	for _, p := range []string{"/slow", "/500", "/garbage", "/endless", "/trickle"} {
		urls = append(urls, srv.URL+p)
	}
	edit := func(c *Config) {
		c.Timeout, c.ProbeTimeout, c.MaxBody = 150*time.Millisecond, 150*time.Millisecond, 64<<10
	}

	probed, _, _ := newTestScraper(t, urls, edit)
	warnings := probed.Probe(context.Background())
	if len(warnings) != len(urls) || len(probed.URLs()) != 0 {
		t.Fatalf("probe kept %v, warned %v", probed.URLs(), warnings)
	}
	for i, u := range urls {
		path := strings.TrimPrefix(u, srv.URL)
		if w := warnings[i].Error(); !strings.Contains(w, u) || !strings.Contains(w, want[path]) || !strings.Contains(w, "dropped: not scraped in this run") {
			t.Errorf("probe warning %q lacks %q", w, want[path])
		}
	}

	s, c, f := newTestScraper(t, urls, edit)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "three failures from every server", func() bool {
		return !slices.ContainsFunc(urls, func(u string) bool { return f.failed(u) < 3 })
	})
	reports := s.Stop()
	if c.count() != 0 {
		t.Errorf("%d scrapes reached the sink", c.count())
	}
	for i, r := range reports {
		path := strings.TrimPrefix(r.URL, srv.URL)
		if r.URL != urls[i] || r.Successes != 0 || r.Failures < 3 || r.Attempts != r.Failures || !strings.Contains(r.FirstError, want[path]) {
			t.Errorf("%s: %+v", path, r)
		}
		if len(r.Gaps) != 1 || r.Gaps[0] != (Gap{Start: r.Start, End: r.End}) {
			t.Errorf("%s: gaps %v, want the whole span [%d, %d]", path, r.Gaps, r.Start, r.End)
		}
		if served := count(path).Load(); int(served) < r.Attempts {
			t.Errorf("%s: %d attempts but the server saw %d requests", path, r.Attempts, served)
		}
	}
}

// A server that dies mid-run leaves a gap from its last good scrape to
// the end, its failures are counted, and scraping goes on.
func TestDeadServerLeavesAGap(t *testing.T) {
	var dead atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if dead.Load() {
			panic(http.ErrAbortHandler) // cut the connection, as a crashed exporter does
		}
		_, _ = w.Write([]byte("# TYPE up gauge\nup 1\n"))
	}))
	defer srv.Close()
	s, c, f := newTestScraper(t, []string{srv.URL}, nil)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "three good scrapes", func() bool { return c.count() >= 3 })
	dead.Store(true)
	waitUntil(t, "five failures", func() bool { return f.failed(srv.URL) >= 5 })
	r := s.Stop()[0]
	scrapes := c.bySource(strings.TrimPrefix(srv.URL, "http://"))
	lastOK := scrapes[len(scrapes)-1][0].Time
	if r.Successes != len(scrapes) || r.Failures < 5 || r.FirstError == "" {
		t.Errorf("report %+v", r)
	}
	if n := len(r.Gaps); n == 0 || r.Gaps[n-1] != (Gap{Start: lastOK, End: r.End}) {
		t.Errorf("gaps %v; want the last from %d to %d", r.Gaps, lastOK, r.End)
	}
}

// Credentials in a URL are sent (Basic auth, a query token) and shown
// nowhere: not in Source, reports, errors or warnings.
func TestCredentialsNeverShown(t *testing.T) {
	var gotAuth atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		gotAuth.Store(ok && user == "admin" && pass == "hunter2" && r.URL.Query().Get("token") == "s3cr3t")
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte("up 1\n"))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	good := "http://admin:hunter2@" + u.Host + "/metrics?token=s3cr3t#frag"
	bad := "http://admin:hunter2@" + u.Host + "/bad?token=s3cr3t"
	s, c, _ := newTestScraper(t, []string{good, bad}, nil)
	warnings := s.Probe(context.Background())
	if !gotAuth.Load() {
		t.Error("the credentials were not sent")
	}
	// Probe dropped the bad URL; scrape it anyway for a failure report.
	s2, _, f2 := newTestScraper(t, []string{bad}, nil)
	for _, sc := range []*Scraper{s, s2} {
		if err := sc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "a scrape of each", func() bool {
		return c.count() >= 1 && f2.failed("http://"+u.Host+"/bad") >= 1
	})
	reports := append(s.Stop(), s2.Stop()...)
	var shown []string
	for _, w := range warnings {
		shown = append(shown, w.Error())
	}
	for _, r := range reports {
		shown = append(shown, r.URL, r.Source, r.FirstError)
	}
	shown = append(shown, s.URLs()...)
	for _, scrape := range c.scrapes {
		for _, smp := range scrape {
			shown = append(shown, smp.Source)
		}
	}
	text := strings.Join(shown, "\n")
	for _, secret := range []string{"hunter2", "admin", "s3cr3t", "token", "frag"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q shown in:\n%s", secret, text)
		}
	}
	if !strings.Contains(text, "http://"+u.Host+"/bad: HTTP 403 Forbidden") || reports[0].URL != "http://"+u.Host+"/metrics" {
		t.Errorf("shown:\n%s", text)
	}
}

func TestSourceAndDisplay(t *testing.T) {
	for raw, want := range map[string][2]string{
		"http://gpu1/metrics":                  {"gpu1:80", "http://gpu1/metrics"},
		"https://GPU1.example/metrics":         {"gpu1.example:443", "https://GPU1.example/metrics"},
		"http://u:p@[::1]:9400/metrics?a=b#c":  {"[::1]:9400", "http://[::1]:9400/metrics"},
		"http://10.0.0.7:8000/metrics?key=xyz": {"10.0.0.7:8000", "http://10.0.0.7:8000/metrics"},
	} {
		tg, err := parseTarget(raw)
		if err != nil || tg.source != want[0] || tg.display != want[1] || tg.url != raw {
			t.Errorf("%s: %+v %v, want %v", raw, tg, err, want)
		}
	}
}

package telemetry

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nodeExporter is Debian's prometheus-node-exporter (.ci/run installs
// it): a real exporter process, built with client_golang, that the test
// can kill.
const nodeExporter = "/usr/bin/prometheus-node-exporter"

// startNodeExporter runs the exporter on a free loopback port with a few
// collectors (enough for counters, gauges and a summary, light enough for
// a shared CI machine) and returns its metrics URL once it answers.
func startNodeExporter(t *testing.T) (string, *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath(nodeExporter)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; .ci/run installs it (apt-get install prometheus-node-exporter)", nodeExporter)
		}
		t.Skipf("%s is not installed (apt-get install prometheus-node-exporter); skipping the real-exporter test", nodeExporter)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults",
		"--collector.cpu", "--collector.meminfo", "--collector.loadavg", "--collector.stat", "--collector.uname")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	url := "http://" + addr + "/metrics"
	waitUntil(t, "node exporter to answer", func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return url, cmd
}

// A real exporter scraped for a few intervals, then killed while scraping
// runs: the scrapes before are data, the ones after are counted failures,
// the silence is a gap up to Stop, and scraping goes on meanwhile.
func TestNodeExporterDiesMidRun(t *testing.T) {
	url, cmd := startNodeExporter(t)
	started := make(chan struct{}, 1)
	s, c, f := newTestScraper(t, []string{url}, func(c *Config) {
		c.Interval = 50 * time.Millisecond
		c.beforeScrape = func(string) {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	})
	if warnings := s.Probe(context.Background()); len(warnings) > 0 {
		t.Fatal(warnings)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "three scrapes", func() bool { return c.count() >= 3 })
	// Freeze the exporter so the next scrape cannot finish, wait for that
	// scrape to start, and kill the exporter under it.
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	default:
	}
	<-started
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitUntil(t, "three failures after the kill", func() bool { return f.failed(url) >= 3 })
	r := s.Stop()[0]

	t.Logf("%d ok, %d failed (first: %s), %d ticks skipped, %d gaps, %v CPU per scrape of %d samples",
		r.Successes, r.Failures, r.FirstError, r.Skipped, len(r.Gaps), r.CPUPerScrape(), r.Samples/max(r.Successes, 1))
	scrapes := c.bySource(r.Source)
	if r.Source != strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics") || r.URL != url {
		t.Errorf("source %q, url %q", r.Source, r.URL)
	}
	if r.Successes != len(scrapes) || r.Successes < 3 || r.Failures < 3 || r.Attempts != r.Successes+r.Failures {
		t.Errorf("report %+v", r)
	}
	if r.FirstError == "" || r.CPU < 0 {
		t.Errorf("first error %q, cpu %v", r.FirstError, r.CPU)
	}
	lastOK := scrapes[len(scrapes)-1][0].Time
	if n := len(r.Gaps); n == 0 || r.Gaps[n-1] != (Gap{Start: lastOK, End: r.End}) {
		t.Errorf("gaps %v: want one from the last success %d to the end %d", r.Gaps, lastOK, r.End)
	}

	samples := scrapes[0]
	if idle, ok := sampleNamed(samples, "node_cpu_seconds_total", "cpu", "0", "mode", "idle"); !ok || idle.Value <= 0 {
		t.Errorf("node_cpu_seconds_total{cpu=0,mode=idle} = %v (found %v)", idle, ok)
	}
	if mem, ok := sampleNamed(samples, "node_memory_MemTotal_bytes"); !ok || mem.Value < 1<<20 {
		t.Errorf("node_memory_MemTotal_bytes = %v", mem)
	}
	if up, ok := sampleNamed(samples, "node_scrape_collector_success", "collector", "cpu"); !ok || up.Value != 1 {
		t.Errorf("node_scrape_collector_success{collector=cpu} = %v", up)
	}
	var quantiles []string
	for _, smp := range samples {
		if smp.Name == "go_gc_duration_seconds" {
			quantiles = append(quantiles, smp.Label("quantile"))
		}
	}
	if len(quantiles) < 3 || quantiles[0] != "0" || quantiles[len(quantiles)-1] != "1" {
		t.Errorf("go_gc_duration_seconds quantiles %v", quantiles)
	}
	if _, ok := sampleNamed(samples, "go_gc_duration_seconds_count"); !ok {
		t.Error("no go_gc_duration_seconds_count")
	}
	if build, ok := sampleNamed(samples, "node_exporter_build_info"); !ok || build.Label("version") == "" {
		t.Errorf("node_exporter_build_info = %v", build)
	}
	for _, smp := range samples {
		if smp.Source != r.Source || smp.Time != scrapes[0][0].Time {
			t.Fatalf("sample %s: source %q time %d", smp.Name, smp.Source, smp.Time)
		}
	}
}

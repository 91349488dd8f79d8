package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serverCountedSweep is prefixSweepScenario against a simulator whose
// usage carries no cached tokens (prompt_tokens_details=false, vLLM's
// default): its prefix cache's hits are in /metrics only. RESET is
// endpoint's reset_prefix_cache.
const serverCountedSweep = `
def main(ctx):
    return experiment(
        name = "cache",
        endpoint = endpoint(url = "sim://?prefix_cache_blocks=4096&prompt_tokens_details=false&ttft=1ms&itl=1ms&itl_per_seq=0ms&jitter=0&max_batch=8",
                            model = "m", stream = True, reset_prefix_cache = RESET),
        dataset = synthetic(input_tokens = fixed(64), output_tokens = fixed(2), entries = 20, seed = 5),
        traffic = concurrency(1),
        sweep = sweep(concurrency = [1, 4]),
        requests = 20,
        same_prompts = True,
    )
`

// A sweep that sends its prompts again warns from the server's own
// counters when the responses carry no cached-token count (issue 28: a
// same-prompts sweep went from 0% to 82.6% hits against vLLM with no
// warning), by metrics.RunsCacheShare's rule; with reset_prefix_cache the
// simulator's cache is emptied before each point, both points see 0% hits
// and nothing is said.
func TestPrefixCacheShiftFromServerCounters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reset string
		warns bool
		hits  string
	}{
		{"False", true, "prefix-cache hits 100.0%"},
		{"True", false, "prefix-cache hits 0.0%"},
	} {
		t.Run("reset_prefix_cache="+c.reset, func(t *testing.T) {
			dir, file := writeScenario(t, strings.Replace(serverCountedSweep, "RESET", c.reset, 1))
			r := runCLI(t, dir, "run", file, "--no-plots")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			const warning = "CACHE: the server's prefix-cache hit share differs between points by 100.0 percentage points " +
				"(concurrency 1 0.0%, concurrency 4 100.0%), more than 10"
			if got := strings.Contains(r.stdout, warning); got != c.warns {
				t.Errorf("warning shown %v, want %v:\n%s", got, c.warns, r.stdout)
			}
			if strings.Contains(r.stdout, "Prefix cache: ") {
				t.Errorf("a usage-based prefix-cache line with no cached counts in the usage:\n%s", r.stdout)
			}
			if !strings.Contains(r.stdout, c.hits) {
				t.Errorf("the second point's server line lacks %q:\n%s", c.hits, r.stdout)
			}
		})
	}
}

// baselineCacheScenario measures one point against a long-lived
// simulator (URL) with a prefix cache it does not report in usage, with a
// baseline gate.
const baselineCacheScenario = `
def main(ctx):
    return experiment(
        name = "chat",
        endpoint = endpoint(url = ctx.vars["url"], model = "m", api = "chat", stream = True),
        dataset = synthetic(input_tokens = fixed(64), output_tokens = fixed(4), entries = 40, seed = 3),
        traffic = concurrency(2),
        requests = 40,
        gates = ["ttft.p50 <= baseline * 10"],
    )
`

// Back-to-back runs against one server send the same prompts, so the
// second finds them all cached: its baseline gate warns, from the
// server's counters, as compare does; with --reset-prefix-cache the
// cache is emptied first, both runs compute every prompt and the gate
// has nothing to warn of.
func TestBaselineGateCacheShareWarning(t *testing.T) {
	t.Parallel()
	url := startSimCommand(t, "--prefix-cache-blocks", "4096", "--no-prompt-tokens-details", "--ttft", "1ms", "--itl", "1ms", "--jitter", "0")
	dir, _ := writeScenario(t, baselineCacheScenario)
	vars := []string{"-D", "url=" + url}
	r := runCLI(t, dir, append([]string{"run", "s.star", "--out", "base", "--no-plots", "--allow-missing-baseline"}, vars...)...)
	if r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	const warning = "prefix-cache hit share: baseline 0.0% (server's counters), candidate 100.0% (server's counters), 100 points apart"
	r = runCLI(t, dir, append([]string{"run", "s.star", "--out", "warm", "--no-plots", "--baseline", "base"}, vars...)...)
	if r.code != 0 {
		t.Fatalf("warm run: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := gateWarning(t, filepath.Join(dir, "warm")); !strings.Contains(v, warning) {
		t.Errorf("warm run: the gate's warning is %q, want %q:\n%s", v, warning, r.stdout)
	}
	r = runCLI(t, dir, append([]string{"run", "s.star", "--out", "reset", "--no-plots", "--baseline", "base", "--reset-prefix-cache"}, vars...)...)
	if r.code != 0 || strings.Contains(r.stdout, "prefix-cache hit share:") || gateWarning(t, filepath.Join(dir, "reset")) != "" {
		t.Errorf("reset run: exit %d, want 0 and no cache warning:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// gateWarning is the warning of the one verdict in out/gates.json.
func gateWarning(t *testing.T, out string) string {
	t.Helper()
	var f struct{ Verdicts []struct{ Warning string } }
	readJSONFile(t, filepath.Join(out, "gates.json"), &f)
	if len(f.Verdicts) != 1 {
		t.Fatalf("%s/gates.json: %d verdicts, want 1", out, len(f.Verdicts))
	}
	return f.Verdicts[0].Warning
}

// A reset the server does not serve stops the run before it sends
// anything, naming the endpoint and its status, and leaves no empty
// folder for the point it never measured.
func TestResetPrefixCacheUnserved(t *testing.T) {
	t.Parallel()
	dir, _ := writeScenario(t, baselineCacheScenario)
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	url := srv.URL
	r := runCLI(t, dir, "run", "s.star", "--out", "x", "--no-plots", "--allow-missing-baseline", "--reset-prefix-cache", "-D", "url="+url)
	if r.code == 0 || !strings.Contains(r.stderr, "POST "+url+"/reset_prefix_cache: HTTP 404 Not Found") ||
		!strings.Contains(r.stderr, "VLLM_SERVER_DEV_MODE=1") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("x/%s/ is left behind by a point that sent nothing", e.Name())
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// prefixSweepScenario sweeps concurrency 1 and 4 against a simulator with
// a prefix cache large enough for every prompt: 20 distinct prompts of 64
// words (4 whole blocks of 16) per point, 20 requests, so no point repeats
// its own prompts. SAME is same_prompts.
const prefixSweepScenario = `
def main(ctx):
    return experiment(
        name = "cache",
        endpoint = endpoint(url = "sim://?prefix_cache_blocks=4096&ttft=1ms&itl=1ms&itl_per_seq=0ms&jitter=0&max_batch=8",
                            model = "m", stream = True),
        dataset = synthetic(input_tokens = fixed(64), output_tokens = fixed(2), entries = 20, seed = 5),
        traffic = concurrency(1),
        sweep = sweep(concurrency = [1, 4]),
        requests = 20,
        same_prompts = SAME,
    )
`

// With same_prompts=True the second point sends the first point's
// prompts again and the cache serves all of them: hit share 0% then 100%
// (20 × 64 of 20 × 64 tokens), and the sweep warns, on the console, in
// summary.json and in report.html. With per-point seeds (the default)
// both points draw fresh prompts: 0% and 0%, no warning. Each request's
// cached_tokens reads back from records.parquet, and llmbench report
// rebuilds the same summary.json from the records.
func TestPrefixCacheShiftWarning(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		same        string
		shares      []float64
		warns       bool
		pointCached []int // cached tokens of each request of each point
	}{
		{"True", []float64{0, 100}, true, []int{0, 64}},
		{"False", []float64{0, 0}, false, []int{0, 0}},
	} {
		t.Run("same_prompts="+c.same, func(t *testing.T) {
			dir, file := writeScenario(t, strings.Replace(prefixSweepScenario, "SAME", c.same, 1))
			r := runCLI(t, dir, "run", file, "--no-plots")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := filepath.Join(dir, "out")
			const warning = "CACHE: the server's prefix-cache hit share differs between points by 100.0 percentage points " +
				"(concurrency 1 0.0%, concurrency 4 100.0%), more than 10"
			if got := strings.Contains(r.stdout, warning); got != c.warns {
				t.Errorf("console warning %v, want %v:\n%s", got, c.warns, r.stdout)
			}
			if !strings.Contains(r.stdout, "Prefix cache: 0.00% of 1,280 prompt tokens served from the server's cache (20 requests reporting)") {
				t.Errorf("no per-point prefix cache line:\n%s", r.stdout)
			}

			var sum struct {
				Experiments []struct {
					Points []struct {
						PrefixCache *struct {
							HitShare     float64 `json:"hit_share"`
							CachedTokens int64   `json:"cached_tokens"`
							PromptTokens int64   `json:"prompt_tokens"`
							Requests     int     `json:"requests"`
						} `json:"prefix_cache"`
					} `json:"points"`
					CacheShift *struct {
						Threshold, Spread float64
						Message           string
					} `json:"cache_shift"`
				} `json:"experiments"`
			}
			readJSONFile(t, filepath.Join(out, "summary.json"), &sum)
			e := sum.Experiments[0]
			for i, p := range e.Points {
				if pc := p.PrefixCache; pc == nil || pc.HitShare != c.shares[i] || pc.PromptTokens != 1280 || pc.Requests != 20 ||
					pc.CachedTokens != int64(20*c.pointCached[i]) {
					t.Errorf("point %d prefix_cache %+v, want %.0f%% of 1280 over 20 requests", i, pc, c.shares[i])
				}
			}
			if (e.CacheShift != nil) != c.warns || c.warns && (e.CacheShift.Threshold != 10 || e.CacheShift.Spread != 100 ||
				!strings.HasPrefix(e.CacheShift.Message, warning)) {
				t.Errorf("summary.json cache_shift %+v, want present %v", e.CacheShift, c.warns)
			}
			html, _ := os.ReadFile(filepath.Join(out, "report.html"))
			if got := bytes.Contains(html, []byte("Prefix cache shifted between points")); got != c.warns {
				t.Errorf("report.html banner %v, want %v", got, c.warns)
			}

			for i, label := range []string{"concurrency1", "concurrency4"} {
				recs, _ := readRecords(t, filepath.Join(out, "cache", label, "records.parquet"))
				for _, rec := range recs {
					if u := rec.Usage; !u.CachedReported || u.CachedTokens != c.pointCached[i] || u.PromptTokens != 64 {
						t.Fatalf("%s request %d: usage %+v, want %d of 64 cached", label, rec.ID, u, c.pointCached[i])
					}
				}
			}

			summary, _ := os.ReadFile(filepath.Join(out, "summary.json"))
			if err := os.Remove(filepath.Join(out, "summary.json")); err != nil {
				t.Fatal(err)
			}
			rep := runCLI(t, dir, "report", out)
			if rep.code != 0 {
				t.Fatalf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
			}
			if got, _ := os.ReadFile(filepath.Join(out, "summary.json")); !bytes.Equal(got, summary) {
				t.Errorf("report rebuilt a different summary.json:\n got %s\nwant %s", got, summary)
			}
			if got := strings.Contains(rep.stdout, warning); got != c.warns {
				t.Errorf("report console warning %v, want %v:\n%s", got, c.warns, rep.stdout)
			}
		})
	}
}

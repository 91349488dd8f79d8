package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// shardScenario is a two-point open-loop sweep and a closed loop; its
// check() — judged centrally by merge — wants 30 requests a point, which
// the whole run has (40) and no one shard of two (20) or four (10) has.
const shardScenario = `
def main(ctx):
    target = endpoint(url = env("SIM_URL"), model = "m")
    data = synthetic(input_tokens = 30, output_tokens = 8)
    return [
        experiment(name = "open", endpoint = target, dataset = data, traffic = rate(40, arrival = "poisson"),
                   requests = 40, warmup = 4, sweep = sweep(rate = [20, 40]), gates = ["error_rate < 1%"]),
        experiment(name = "closed", endpoint = target, dataset = data, traffic = concurrency(4),
                   requests = 40, gates = ["error_rate < 1%"]),
    ]

def check(results):
    for name in ["open", "closed"]:
        for p in results[name].points:
            if p.request_count < 30:
                fail("%s: %d requests, want 30" % (name, p.request_count))
`

// TestShardsMergeToTheSingleMachineRun runs the scenario on one process,
// then as 2 and as 4 shard processes with the pod's environment contract
// (JOB_COMPLETION_INDEX, --shard auto --shards N, a barrier on shard 0,
// one results folder each), merges them and checks: the server saw the
// single-machine request count; the merged open-loop schedule is the
// single-machine one, offset for offset; merged percentiles are those of
// the union of the shards' records; the central gate passes where no
// shard alone would; the start skew is recorded.
func TestShardsMergeToTheSingleMachineRun(t *testing.T) {
	t.Parallel()
	sim := startSimCommand(t, "--itl", "1ms", "--ttft", "5ms")
	dir, file := writeScenario(t, shardScenario)
	env := []string{"SIM_URL=" + sim}
	single := filepath.Join(dir, "single")
	before := simRequests(t, sim)
	if r := runCLIEnv(t, dir, env, "run", file, "--out", single, "--no-plots"); r.code != 0 {
		t.Fatalf("single run: exit %d\n%s", r.code, r.stderr)
	}
	want := simRequests(t, sim) - before
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			before := simRequests(t, sim)
			shards := runShards(t, dir, file, env, n)
			if got := simRequests(t, sim) - before; got != want {
				t.Errorf("the server saw %d requests from %d shards, %d from one process", got, n, want)
			}
			merged := filepath.Join(dir, fmt.Sprintf("merged%d", n))
			r := runCLIEnv(t, dir, env, append(append([]string{"merge"}, shards...), "--out", merged, "--scenario", file, "--no-plots")...)
			if r.code != 0 || !strings.Contains(r.stdout, "check(): passed") {
				t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, fmt.Sprintf("Shards: %d shards, requests ", n)) || !strings.Contains(r.stdout, "start skew") {
				t.Errorf("merge prints no shard shares and skew:\n%s", r.stdout)
			}
			for _, point := range []string{"open/request_rate20.0", "open/request_rate40.0"} {
				assertSameSchedule(t, filepath.Join(single, point), filepath.Join(merged, point))
			}
			logSkew(t, merged, n)
			assertSameTree(t, single, merged)
			for _, point := range []string{"open/request_rate40.0", "closed/concurrency4"} {
				assertSameExportRequests(t, filepath.Join(single, point), filepath.Join(merged, point))
				assertExportReproduces(t, filepath.Join(merged, point))
			}
			for _, point := range []string{"open/request_rate40.0", "closed/concurrency4"} {
				assertUnionPercentiles(t, shards, filepath.Join(merged, point), point)
			}
		})
	}
}

// runShards starts n shard processes as an Indexed Job's pods would run
// and returns their results folders.
func runShards(t *testing.T, dir, file string, env []string, n int) []string {
	t.Helper()
	barrier := freeLocalAddr(t)
	outs := make([]string, n)
	results := make([]cliResult, n)
	var wg sync.WaitGroup
	for i := range n {
		outs[i] = filepath.Join(dir, fmt.Sprintf("n%d-shard-%d", n, i))
		wg.Go(func() {
			cmd := exec.Command(binary, "run", file, "--shard", "auto", "--shards", strconv.Itoa(n),
				"--barrier", barrier, "--out", outs[i], "--no-plots")
			results[i] = runCommand(t, cmd, dir, append(env, "JOB_COMPLETION_INDEX="+strconv.Itoa(i)))
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("Shard %d/%d: gates and check() are judged", i, n)) {
			t.Fatalf("shard %d/%d: exit %d\n%s%s", i, n, r.code, r.stdout, r.stderr)
		}
	}
	return outs
}

// assertSameSchedule: the merged point planned exactly the sends the
// single run planned, as offsets from the first.
func assertSameSchedule(t *testing.T, single, merged string) {
	t.Helper()
	offsets := func(dir string) []int64 {
		recs, _ := readRecords(t, filepath.Join(dir, "records.parquet"))
		var at []int64
		for _, r := range recs {
			at = append(at, r.Scheduled)
		}
		slices.Sort(at)
		for i := len(at) - 1; i >= 0; i-- {
			at[i] -= at[0]
		}
		return at
	}
	a, b := offsets(single), offsets(merged)
	if !slices.Equal(a, b) {
		t.Errorf("%s: merged planned offsets differ from the single run's:\n single %v\n merged %v", filepath.Base(merged), a, b)
	}
}

// assertUnionPercentiles: the merged summary's TTFT and latency
// percentiles are those of every shard's records pooled.
func assertUnionPercentiles(t *testing.T, shards []string, merged, point string) {
	t.Helper()
	var union []metrics.Record
	for _, s := range shards {
		recs, _ := readRecords(t, filepath.Join(s, point, "records.parquet"))
		union = append(union, recs...)
	}
	got, _ := readRecords(t, filepath.Join(merged, "records.parquet"))
	if len(got) != len(union) {
		t.Fatalf("%s: merged %d records, the shards hold %d", point, len(got), len(union))
	}
	acc := metrics.NewAccumulator(metrics.Options{})
	for i := range union {
		acc.Add(&union[i])
	}
	mine := acc.Summary()
	m := genaiPerfJSON(t, merged)
	for _, c := range []struct {
		name string
		d    *metrics.Distribution
	}{{"time_to_first_token", mine.TimeToFirstToken}, {"request_latency", mine.RequestLatency}} {
		for _, p := range []string{"p50", "p90", "p99"} {
			q, _ := strconv.ParseFloat(p[1:], 64)
			if want, got := c.d.Percentile(q)/1e6, m[c.name][p].(float64); !closeEnough(want, got) {
				t.Errorf("%s %s %s: merged %v, union of the shards %v", point, c.name, p, got, want)
			}
		}
	}
}

// assertSameTree: merge writes every file a single-machine run writes,
// but for checkpoint.json (a shard's own resume state); neither drew
// plots (--no-plots).
func assertSameTree(t *testing.T, single, merged string) {
	t.Helper()
	files := func(root string) []string {
		var out []string
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if !d.IsDir() && rel != "checkpoint.json" {
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	if a, b := files(single), files(merged); !slices.Equal(a, b) {
		t.Errorf("merged files differ from a single run's:\n single %v\n merged %v", a, b)
	}
}

// assertSameExportRequests: the merged profile_export.json describes the
// point as the single run's does: the same experiment, as many requests,
// each entry whole.
func assertSameExportRequests(t *testing.T, single, merged string) {
	t.Helper()
	read := func(dir string) (mode string, value float64, requests int) {
		var doc struct {
			Experiments []struct {
				Experiment struct {
					Mode  string
					Value float64
				}
				Requests []struct {
					Timestamp          int64
					ResponseTimestamps []int64 `json:"response_timestamps"`
				}
			}
		}
		readJSONFile(t, filepath.Join(dir, "profile_export.json"), &doc)
		e := doc.Experiments[0]
		for _, r := range e.Requests {
			if r.Timestamp == 0 || len(r.ResponseTimestamps) == 0 {
				t.Errorf("%s: an export entry without its times", dir)
			}
		}
		return e.Experiment.Mode, e.Experiment.Value, len(e.Requests)
	}
	m1, v1, n1 := read(single)
	m2, v2, n2 := read(merged)
	if m1 != m2 || v1 != v2 || n1 != n2 {
		t.Errorf("%s: merged export is %s %v with %d requests, the single run's %s %v with %d", merged, m2, v2, n2, m1, v1, n1)
	}
}

// assertExportReproduces: the merged profile_export.json, imported alone
// (`llmbench report FILE`, as GenAI-Perf would read it), gives exactly
// the metrics merge computed from the merged records.
func assertExportReproduces(t *testing.T, point string) {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(point, "profile_export.json"))
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "profile_export.json")
	if err := os.WriteFile(export, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, dir, "report", export); r.code != 0 {
		t.Fatalf("report of the merged export: exit %d\n%s", r.code, r.stderr)
	}
	imported, merged := genaiPerfJSON(t, filepath.Join(dir, "llmbench-report")), genaiPerfJSON(t, point)
	for _, m := range []string{"time_to_first_token", "request_latency", "inter_token_latency", "request_throughput", "output_token_throughput"} {
		if !reflect.DeepEqual(imported[m], merged[m]) {
			t.Errorf("%s: %s from the merged export %v, from the merged records %v", point, m, imported[m], merged[m])
		}
	}
}

func closeEnough(a, b float64) bool { return a == b || (a-b)*(a-b) < 1e-18*(a*a+b*b) }

// simRequests is how many requests the simulator has finished, from its
// own /metrics.
func simRequests(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(base, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, value, ok := strings.Cut(sc.Text(), " "); ok && strings.HasPrefix(name, "vllm:e2e_request_latency_seconds_count") {
			n, _ := strconv.ParseFloat(value, 64)
			return int(n)
		}
	}
	t.Fatal("the simulator's /metrics has no vllm:e2e_request_latency_seconds_count")
	return 0
}

func freeLocalAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// A merge missing a shard names it and exits 2; --allow-missing merges
// the rest into a partial result with a warning.
func TestMergeRefusesAMissingShard(t *testing.T) {
	t.Parallel()
	sim := startSimCommand(t, "--itl", "1ms", "--ttft", "2ms")
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = env("SIM_URL"), model = "m"),
        dataset = synthetic(input_tokens = 10, output_tokens = 4), traffic = concurrency(3), requests = 9)
`)
	env := []string{"SIM_URL=" + sim}
	shards := runShards(t, dir, file, env, 3)
	r := runCLIEnv(t, dir, env, "merge", shards[0], shards[2], "--out", filepath.Join(dir, "m"))
	if r.code != 2 || !strings.Contains(r.stderr, "shard 1 of 3 is missing") {
		t.Errorf("merge without shard 1: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLIEnv(t, dir, env, "merge", shards[0], shards[2], "--out", filepath.Join(dir, "m2"), "--allow-missing")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: e/concurrency3: shard 1 of 3 is missing; the merged point is partial") ||
		!strings.Contains(r.stdout, "Requests: 6 completed") {
		t.Errorf("--allow-missing: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var sum struct{ Partial bool }
	readJSONFile(t, filepath.Join(dir, "m2", "summary.json"), &sum)
	if !sum.Partial {
		t.Error("summary.json of a merge missing a shard is not marked partial")
	}
}

func TestShardBadInput(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = env("URL", "http://127.0.0.1:9"), model = "m"),
        dataset = synthetic(input_tokens = 10), traffic = concurrency(2),
        requests = "auto" if env("AUTO") else 4)
`)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--shard", "3/2"}, "--shard: got \"3/2\", want I/N with 0 <= I < N"},
		{nil, []string{"--shard", "0/4", "--barrier", "127.0.0.1:1"}, "concurrency 2 is below the 4 shards"},
		{nil, []string{"--shard", "0/2"}, "needs --barrier HOST:PORT"},
		{[]string{"URL=sim://"}, []string{"--shard", "0/2", "--start-at", "1"}, "sim:// under --shard would start one simulator per shard"},
		{nil, []string{"--shard", "0/2", "--start-at", "soon"}, "--start-at: got \"soon\", want RFC 3339"},
		{nil, []string{"--barrier", "h:1"}, "--start-at and --barrier need --shard I/N"},
		{nil, []string{"--shard", "auto"}, "--shard auto: neither SLURM_PROCID/SLURM_NTASKS nor JOB_COMPLETION_INDEX"},
		{[]string{"AUTO=1"}, []string{"--shard", "0/2", "--barrier", "127.0.0.1:1"}, `requests="auto" / duration="auto" stops each point`},
	} {
		r := runCLIEnv(t, dir, tc.env, append([]string{"run", file}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// logSkew logs each merged point's start skew, the figure docs/sharding.md
// quotes.
func logSkew(t *testing.T, merged string, n int) {
	var sum struct {
		Experiments []struct {
			Points []struct {
				Label  string
				Shards struct {
					Count  int
					SkewMs float64 `json:"start_skew_ms"`
				}
			}
		}
	}
	readJSONFile(t, filepath.Join(merged, "summary.json"), &sum)
	for _, e := range sum.Experiments {
		for _, p := range e.Points {
			if p.Shards.Count != n {
				t.Errorf("%s: summary.json counts %d shards, want %d", p.Label, p.Shards.Count, n)
			}
			t.Logf("%d shards, %s: start skew %.3f ms", n, p.Label, p.Shards.SkewMs)
		}
	}
}

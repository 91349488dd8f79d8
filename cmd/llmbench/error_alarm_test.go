package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// dyingServer is an OpenAI chat server that answers its first `serve`
// requests and then dies: it stops listening and drops every connection,
// as a server killed mid-run does. Every request after that fails. It
// dies only once the answers it gave are on the wire (whole, with their
// length, and flushed): dropping the connections while another handler
// was still writing its answer made one of the served requests a reset,
// in about one run in twenty.
func dyingServer(t *testing.T, serve int) string {
	t.Helper()
	const answer = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"one two three"},"finish_reason":"stop"}],"usage":{"prompt_tokens":8,"completion_tokens":3,"total_tokens":11}}`
	var (
		mu       sync.Mutex
		served   int
		answered sync.WaitGroup // the answers not yet flushed
		srv      *httptest.Server
	)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost { // /metrics: it exports none
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		served++
		dead := served > serve
		if !dead {
			answered.Add(1)
		}
		mu.Unlock()
		if dead { // the process dies: no more listening, no more connections
			answered.Wait()
			srv.Listener.Close()
			srv.CloseClientConnections()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		defer answered.Done()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		fmt.Fprint(w, answer)
		w.(http.Flusher).Flush()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A server killed mid-run fails nearly every request. With nothing set to
// judge errors (no error budget, no error_rate gate) the run still writes
// everything, then says so on the console and in summary.json and exits
// 3; an error budget or an error_rate gate makes the errors the user's to
// judge, and the default steps aside.
func TestUnjudgedErrorsExitThree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, extra string
		code        int
	}{
		{"nothing set", ``, 3},
		{"error budget accepts them", `, error_budget = "100%"`, 0},
		{"error_rate gate judges them", `, gates = ["error_rate < 99%"]`, 0},
		{"error_rate gate fails", `, gates = ["error_rate < 5%"]`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := dyingServer(t, 2)
			dir, file := writeScenario(t, fmt.Sprintf(`
def main(ctx):
    ds = synthetic(input_tokens = fixed(8), output_tokens = fixed(3))
    ep = endpoint(url = %q, model = "m", stream = False, token_count = "usage")
    return experiment(name = "e", endpoint = ep, dataset = ds, traffic = concurrency(1), requests = 20%s)
`, url, c.extra))
			out := filepath.Join(dir, "out")
			r := runCLI(t, dir, "run", file, "--out", out, "--no-plots")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", r.code, c.code, r.stdout, r.stderr)
			}
			summary, b := readAlarms(t, out)
			// llmbench report rebuilds summary.json from the records and the
			// saved plan (its error budget included) and judges alike.
			if rr := runCLI(t, dir, "report", out); rr.code != 0 && rr.code != 1 {
				t.Fatalf("report: exit %d\n%s", rr.code, rr.stderr)
			}
			if rebuilt, rb := readAlarms(t, out); len(rebuilt.Alarms) != len(summary.Alarms) {
				t.Errorf("report rebuilt summary.json with %d error alarms, the run wrote %d: %s", len(rebuilt.Alarms), len(summary.Alarms), rb)
			}
			if c.code != 3 {
				if len(summary.Alarms) != 0 || strings.Contains(r.stderr, "default error budget") {
					t.Errorf("an alarm although the user judges errors: %s\n%s", b, r.stderr)
				}
				return
			}
			if !strings.Contains(r.stderr, "over the default error budget of 10%") || !strings.Contains(r.stderr, "e/concurrency1: 18 of 20 requests failed") ||
				!strings.Contains(r.stderr, "error_budget") {
				t.Errorf("stderr does not name the alarm, the point and the way out: %s", r.stderr)
			}
			if len(summary.Alarms) != 1 || summary.Alarms[0].Failed != 18 || summary.Alarms[0].Finished != 20 || summary.Alarms[0].ErrorRate != 90 {
				t.Errorf("summary.json error_alarms: %s", b)
			}
			if _, err := os.Stat(filepath.Join(out, "e", "concurrency1", "records.parquet")); err != nil {
				t.Errorf("the records are not written: %v", err)
			}
		})
	}
}

// alarmSummary is what summary.json says of the default error budget.
type alarmSummary struct {
	Alarms []struct {
		Point     string  `json:"point"`
		Failed    int     `json:"failed"`
		Finished  int     `json:"finished"`
		ErrorRate float64 `json:"error_rate"`
	} `json:"error_alarms"`
}

func readAlarms(t *testing.T, out string) (alarmSummary, []byte) {
	t.Helper()
	var s alarmSummary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("summary.json: %v %s", err, b)
	}
	return s, b
}

// profile has no gates: its errors are judged by --max-error-rate, and
// without one by the default budget. The simulator's seeded 500s make
// the share the same on every run.
func TestProfileUnjudgedErrorsExitThree(t *testing.T) {
	t.Parallel()
	base := []string{"profile", "-m", "m", "--request-count", "40", "-u", "sim://?error_rate_500=0.5&seed=3&ttft=1ms&itl=1ms", "--output-tokens-mean", "4"}
	r := runCLI(t, t.TempDir(), base...)
	if r.code != 3 || !strings.Contains(r.stderr, "over the default error budget of 10%") || !strings.Contains(r.stderr, "--max-error-rate") {
		t.Errorf("half failing, no budget: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, t.TempDir(), append(base, "--max-error-rate", "100%")...); r.code != 0 {
		t.Errorf("half failing under a 100%% budget: exit %d, stderr %q", r.code, r.stderr)
	}
}

// profile measures one point, so its errors name that point by its
// artifact folder, never an "experiment" the user did not write.
func TestProfileErrorsSpeakOfPoints(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", closed)
	if r.code != 3 || !strings.Contains(r.stderr, "point m-openai-chat-concurrency1: target unreachable") || strings.Contains(r.stderr, "experiment") {
		t.Errorf("unreachable: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, t.TempDir(), "profile", "-m", "m", "--request-count", "40", "-u", "sim://?error_rate_500=0.5&seed=3&ttft=1ms&itl=1ms",
		"--output-tokens-mean", "4")
	if r.code != 3 || !strings.Contains(r.stderr, "point m-openai-chat-concurrency1: ") || strings.Contains(r.stderr, "experiment") ||
		strings.Contains(r.stderr, "/concurrency1") {
		t.Errorf("errors over the default budget: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A shard leaves the default error budget to merge, as it leaves the
// gates: the merged run of shards against a server that died is exit 3
// naming the point, with summary.json's alarm, and merge says where its
// files went, as run does.
func TestMergeJudgesUnjudgedErrors(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = env("SIM_URL"), model = "m", stream = False, token_count = "usage"),
                      dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(3)), traffic = concurrency(2), requests = 20)
`)
	shards := runShards(t, dir, file, []string{"SIM_URL=" + dyingServer(t, 2)}, 2)
	out := filepath.Join(dir, "merged")
	r := runCLI(t, dir, append(append([]string{"merge"}, shards...), "--out", out)...)
	if r.code != 3 || !strings.Contains(r.stderr, "over the default error budget of 10%") || !strings.Contains(r.stderr, "e/concurrency2: 18 of 20 requests failed") {
		t.Fatalf("merge: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if s, b := readAlarms(t, out); len(s.Alarms) != 1 || s.Alarms[0].Failed != 18 {
		t.Errorf("merged summary.json: %s", b)
	}
	if lastLine(r.stdout, "Report:") != "Report:  "+filepath.Join(out, "report.html") {
		t.Errorf("merge does not say where report.html went:\n%s", r.stdout)
	}
}

package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Repeated -u spreads the requests over the replicas: round robin gives
// each server exactly half, the console shows a table per replica, and
// every record in records.parquet names the replica that served it.
func TestProfileSpreadsOverReplicas(t *testing.T) {
	a, b := startModelServer(t), startModelServer(t)
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", a.addr(), "-u", b.addr(), "--concurrency", "2",
		"--request-count", "12", "--num-dataset-entries", "4", "--synthetic-input-tokens-mean", "5")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if na, nb := len(a.seen()), len(b.seen()); na != 6 || nb != 6 {
		t.Errorf("servers saw %d and %d requests, want 6 each", na, nb)
	}
	if !strings.Contains(r.stdout, "Per replica:") || !strings.Contains(r.stdout, a.addr()) || !strings.Contains(r.stdout, b.addr()) {
		t.Errorf("console lacks the per-replica table:\n%s", r.stdout)
	}
	recs, _ := readRecords(t, filepath.Join(dir, "artifacts", "m-openai-chat-concurrency2", "records.parquet"))
	served := make([]int, 2)
	for _, rec := range recs {
		served[rec.Replica]++
	}
	if !slices.Equal(served, []int{6, 6}) {
		t.Errorf("records.parquet: replicas served %v, want [6 6]", served)
	}
	// llmbench report rebuilds the per-replica table from the records and
	// the saved plan, the same as the run printed it.
	rep := runCLI(t, dir, "report", filepath.Join(dir, "artifacts", "m-openai-chat-concurrency2"))
	if rep.code != 0 || tableOf(rep.stdout) != tableOf(r.stdout) || tableOf(r.stdout) == "" {
		t.Errorf("report exit %d; its per-replica table\n%s\nwant the run's\n%s", rep.code, tableOf(rep.stdout), tableOf(r.stdout))
	}
}

// tableOf is the per-replica table of a point's console output.
func tableOf(out string) string {
	_, rest, ok := strings.Cut(out, "Per replica:")
	if !ok {
		return ""
	}
	lines := strings.Split(rest, "\n")
	n := 1
	for n < len(lines) && strings.HasPrefix(lines[n], "               ") {
		n++
	}
	return strings.Join(lines[:n], "\n")
}

// A scenario's endpoint(url=[...]) with two simulators under least in
// flight writes each replica's share to summary.json, and a gate on one
// replica is judged on that replica's requests alone: the same TTFT bound
// holds for the fast replica and fails for the slow one (exit 1).
func TestRunReplicasSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `
target = endpoint(url = [sim(ttft = "1ms", itl = "1ms"), sim(ttft = "300ms", itl = "1ms")], model = "m",
    url_selection = "least_in_flight", token_count = "usage")
def main(ctx):
    return experiment(name = "reps", endpoint = target,
        dataset = synthetic(input_tokens = fixed(10), output_tokens = fixed(4)),
        traffic = concurrency(4), requests = 40,
        gates = ["ttft.p50 < 100ms @ replica=0", "ttft.p50 < 100ms @ replica=1"])
`
	if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", "s.star", "--out", "out", "--no-plots")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the slow replica's gate fails)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Experiments []struct {
			Points []struct {
				Replicas []struct {
					Index    int
					URL      string
					Requests struct{ Completed int }
				}
				Gates []struct {
					Gate   string
					Passed bool
				}
				Telemetry struct {
					Sources []struct{ URL string }
				}
			}
		}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	reps := sum.Experiments[0].Points[0].Replicas
	if len(reps) != 2 || reps[0].URL != "sim://?itl=1ms&ttft=1ms" || reps[1].Index != 1 {
		t.Fatalf("summary.json replicas: %+v", reps)
	}
	// Each replica's own /metrics is discovered and scraped.
	if src := sum.Experiments[0].Points[0].Telemetry.Sources; len(src) != 2 || src[0].URL == src[1].URL {
		t.Errorf("telemetry sources %+v, want both simulators' /metrics", src)
	}
	gates := sum.Experiments[0].Points[0].Gates
	if len(gates) != 2 || !gates[0].Passed || gates[1].Passed {
		t.Errorf("gates: %+v; want the fast replica's to pass and the slow one's to fail", gates)
	}
	fast, slow := reps[0].Requests.Completed, reps[1].Requests.Completed
	if fast+slow != 40 || slow >= fast {
		t.Errorf("least in flight: fast replica %d, slow %d requests; want 40 in all, fewer on the slow one", fast, slow)
	}
}

// --source-address binds each connection to the next local address: a
// server that closes every connection sees the requests come from each
// address of the range in turn.
func TestProfileSourceAddresses(t *testing.T) {
	var mu sync.Mutex
	var from []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost { // the telemetry probe of /metrics
			http.NotFound(w, r)
			return
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		from = append(from, host)
		mu.Unlock()
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"message":{"content":"one two"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", srv.URL, "--source-address", "127.0.0.2-127.0.0.3",
		"--source-address", "127.0.0.7", "--request-count", "6", "--num-dataset-entries", "2", "--synthetic-input-tokens-mean", "5")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got, want := strings.Join(from, " "), "127.0.0.2 127.0.0.3 127.0.0.7 127.0.0.2 127.0.0.3 127.0.0.7"; got != want {
		t.Errorf("server saw connections from %s, want %s", got, want)
	}
}

// Bad replica and source-address flags are exit 2 with the flag named,
// for profile and run.
func TestReplicaFlagsRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	scenario := `
def main(ctx):
    return experiment(name = "x", endpoint = endpoint(url = "sim://", model = "m"),
        dataset = synthetic(input_tokens = fixed(10), output_tokens = fixed(4)), traffic = concurrency(1), requests = 2)
`
	if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "-m", "m", "-u", "sim://", "--source-address", "127.0.0.9-127.0.0.2"}, `--source-address: "127.0.0.9-127.0.0.2": the range ends before it starts`},
		{[]string{"profile", "-m", "m", "-u", "sim://", "--source-address", "192.0.2.1"}, "--source-address: 192.0.2.1 is not an address of this machine"},
		{[]string{"profile", "-m", "m", "-u", "sim://", "-u", "sim://", "--url-selection", "fastest"}, "--url-selection"},
		{[]string{"profile", "-m", "m", "-u", "sim://", "-u", "ftp://x:1"}, `--url ftp://x:1: scheme "ftp" is not served`},
		{[]string{"run", "s.star", "--out", "out", "--source-address", "127.0.0.2-nope"}, `--source-address: "127.0.0.2-nope": the range's end is not an IP address`},
	} {
		r := runCLI(t, dir, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A conversation stays on one replica: every turn of a session is served
// by the replica of its first turn, while the sessions are spread.
func TestRunConversationsKeepTheirReplica(t *testing.T) {
	dir, file := writeScenario(t, `
target = endpoint(url = ["sim://?ttft=1ms&itl=1ms", "sim://?ttft=1ms&itl=1ms"], model = "m")
def main(ctx):
    return experiment(name = "chat", endpoint = target, traffic = concurrency(2), sessions = 6,
        dataset = conversations(turns = 3, input_tokens = 12, output_tokens = 4))
`)
	r := runCLI(t, dir, "run", file, "--out", filepath.Join(dir, "out"), "--no-plots")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out", "chat", "*", "records.parquet"))
	if len(files) != 1 {
		t.Fatalf("records files: %v", files)
	}
	recs, _ := readRecords(t, files[0])
	replicaOf, used := map[string]int{}, map[int]bool{}
	for _, rec := range recs {
		if first, ok := replicaOf[rec.Session]; ok && first != rec.Replica {
			t.Errorf("session %s turn %d went to replica %d, its first turn to %d", rec.Session, rec.Turn, rec.Replica, first)
		}
		replicaOf[rec.Session] = rec.Replica
		used[rec.Replica] = true
	}
	if len(recs) != 18 || len(replicaOf) != 6 || len(used) != 2 {
		t.Errorf("%d records of %d sessions on replicas %v; want 18 of 6 on both replicas", len(recs), len(replicaOf), used)
	}
}

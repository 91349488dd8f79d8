package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profile --endpoint-type rankings with a queries/passages folder, as
// GenAI-Perf takes it, against the simulator: every request pairs one
// query with --batch-size-text passages, the table is GenAI-Perf's
// Rankings table (request latency, throughput, count), and the folder is
// <model>-openai-rankings-concurrency2.
func TestProfileRankings(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "rank")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, lines ...string) {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(`{"text": "` + l + `"}` + "\n")
		}
		if err := os.WriteFile(filepath.Join(in, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("queries.jsonl", "what is a benchmark", "how fast is it")
	write("passages.jsonl", "a benchmark measures", "speed is tokens per second", "latency is time", "throughput is work per time")
	r := runCLI(t, dir, "profile", "-m", "rerank", "-u", "sim://?ttft=5ms", "--endpoint-type", "rankings",
		"--input-file", in, "--batch-size-text", "3", "--concurrency", "2", "--request-count", "10")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "NVIDIA GenAI-Perf | Rankings Metrics") || strings.Contains(r.stdout, "Time To First Token") {
		t.Errorf("want the Rankings table without token metrics:\n%s", r.stdout)
	}
	run := filepath.Join(dir, "artifacts", "rerank-openai-rankings-concurrency2")
	m := genaiPerfJSON(t, run)
	if m["request_count"]["avg"] != 10.0 || m["request_latency"]["min"].(float64) < 5 {
		t.Errorf("request_count %v, latency min %v; want 10 requests of at least the sim's 5 ms", m["request_count"]["avg"], m["request_latency"]["min"])
	}
	b, err := os.ReadFile(filepath.Join(run, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs struct {
		Data []struct {
			Payload []struct {
				Query    struct{ Text string }
				Passages []struct{ Text string }
				Model    string
			}
		}
	}
	if err := json.Unmarshal(b, &inputs); err != nil {
		t.Fatal(err)
	}
	for i, d := range inputs.Data {
		p := d.Payload[0]
		seen := map[string]bool{}
		for _, x := range p.Passages {
			seen[x.Text] = true
		}
		if p.Query.Text == "" || len(p.Passages) != 3 || len(seen) != 3 || p.Model != "rerank" {
			t.Fatalf("inputs.json entry %d: %+v, want a query with 3 distinct passages", i, p)
		}
	}
}

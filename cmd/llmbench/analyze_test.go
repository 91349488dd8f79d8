package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/reports/artifacts"
)

// analyzeCSV reads artifacts/analyze_export_genai_perf.csv's first table
// (the points) as rows of cells, header first.
func analyzeCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	points, _ := analyzeTables(t, dir)
	return points
}

// analyzeTables reads both tables of analyze_export_genai_perf.csv: the
// points and, when telemetry was scraped, the GPU table (header first).
func analyzeTables(t *testing.T, dir string) (points, gpus [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "artifacts", analyzeCSVName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1 // two tables of different widths
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if len(row) > 1 && row[0] == "Config Name" && row[1] == "GPU" {
			return rows[:i], rows[i:]
		}
	}
	return rows, nil
}

// csvRowOf is the analyze CSV row GenAI-Perf would write for a point from
// its profile_export_genai_perf.json.
func csvRowOf(t *testing.T, pointDir, name, load string) []string {
	t.Helper()
	m := genaiPerfJSON(t, pointDir)
	f2 := func(key, stat string) string {
		v, _ := m[key][stat].(float64)
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	isl, _ := m["input_sequence_length"]["p99"].(float64)
	return []string{name, load, strconv.Itoa(int(math.Trunc(isl))), "100",
		f2("time_to_first_token", "p99"), f2("inter_token_latency", "p99"), f2("request_latency", "p99"),
		f2("output_sequence_length", "p99"), f2("output_token_throughput", "avg"), f2("request_throughput", "avg")}
}

// A concurrency sweep against the simulator: one GenAI-Perf folder per
// point with the usual files, an analyze CSV whose rows are the points'
// JSON values, summary.json, and the sweep table on the console.
func TestAnalyzeAgainstSimulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "analyze", "-m", "org/model", "-u", "sim://?max_batch=2&ttft=2ms&itl=1ms", "--streaming",
		"--sweep-range", "1:4", "--output-tokens-mean", "5", "--synthetic-input-tokens-mean", "30",
		"--goodput", "time_to_first_token:1000")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rows, gpus := analyzeTables(t, dir)
	if len(rows) != 4 || rows[0][1] != "Concurrency" {
		t.Fatalf("analyze CSV: %v", rows)
	}
	// The simulator's /metrics (found at the endpoint) gives GenAI-Perf's
	// second table: one row per config for its one GPU.
	if len(gpus) != 4 || gpus[0][2] != "p99 GPU Power Usage (W)" || gpus[1][1] != "gpu0 (simulated)" {
		t.Errorf("GPU table: %v", gpus)
	}
	want := map[string][]string{}
	for i, c := range []string{"1", "2", "4"} {
		point := filepath.Join(dir, "artifacts", "org_model-openai-chat-concurrency"+c)
		for _, f := range []string{"inputs.json", "profile_export.json", "profile_export_genai_perf.json", "profile_export_genai_perf.csv"} {
			if _, err := os.Stat(filepath.Join(point, f)); err != nil {
				t.Errorf("missing artifact: %v", err)
			}
		}
		name := "org/model_run_config_" + strconv.Itoa(i)
		want[name] = csvRowOf(t, point, name, c)
		if cfg := genaiPerfJSON(t, point)["input_config"]; cfg["subcommand"] != "analyze" {
			t.Errorf("input_config.subcommand = %v", cfg["subcommand"])
		}
	}
	for _, row := range rows[1:] {
		if strings.Join(row, ",") != strings.Join(want[row[0]], ",") {
			t.Errorf("CSV row %v\n   from JSON %v", row, want[row[0]])
		}
	}
	var summary struct {
		Experiments []struct {
			Points     []json.RawMessage `json:"points"`
			MaxGoodput *struct{}         `json:"max_goodput"`
			Saturation *struct{}         `json:"saturation"`
		} `json:"experiments"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "artifacts", artifacts.SummaryFile))
	if err != nil || json.Unmarshal(b, &summary) != nil || len(summary.Experiments) != 1 ||
		len(summary.Experiments[0].Points) != 3 || summary.Experiments[0].MaxGoodput == nil || summary.Experiments[0].Saturation == nil {
		t.Errorf("summary.json (%v): %s", err, b)
	}
	for _, s := range []string{"concurrency  TTFT p99 (ms)", "Max goodput:", "Saturation:", "Knee:"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("sweep table lacks %q:\n%s", s, r.stdout)
		}
	}
}

// ISL and OSL sweeps change what is sent (GenAI-Perf's ISL sweep only
// renamed folders), and folders are named after the swept parameter; a
// request-rate sweep heads its CSV column "Request Rate".
func TestAnalyzeTokenAndRateSweeps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sim := "sim://?ttft=1ms&itl=1ms"
	r := runCLI(t, dir, "analyze", "-m", "m", "-u", sim, "--streaming", "--sweep-type", "input_sequence_length",
		"--sweep-list", "16,64", "--output-tokens-mean", "4", "--request-count", "6")
	if r.code != 0 {
		t.Fatalf("ISL sweep: exit %d\n%s", r.code, r.stderr)
	}
	for _, isl := range []float64{16, 64} {
		m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "m-openai-chat-input_sequence_length"+strconv.Itoa(int(isl))))
		if got := m["input_sequence_length"]["avg"]; got != isl {
			t.Errorf("ISL sweep point %v: ISL avg %v", isl, got)
		}
	}
	if rows := analyzeCSV(t, dir); len(rows) != 3 || rows[1][1] != "1" || rows[0][1] != "Concurrency" {
		t.Errorf("ISL sweep CSV (load column is the fixed concurrency 1): %v", rows)
	}

	dir = t.TempDir()
	r = runCLI(t, dir, "analyze", "-m", "m", "-u", sim, "--streaming", "--sweep-type", "output_sequence_length",
		"--sweep-list", "3,9", "--concurrency", "2", "--request-count", "6")
	if r.code != 0 {
		t.Fatalf("OSL sweep: exit %d\n%s", r.code, r.stderr)
	}
	for _, osl := range []float64{3, 9} {
		m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "m-openai-chat-output_sequence_length"+strconv.Itoa(int(osl))))
		if got := m["output_sequence_length"]["avg"]; got != osl {
			t.Errorf("OSL sweep point %v: OSL avg %v", osl, got)
		}
	}

	dir = t.TempDir()
	r = runCLI(t, dir, "analyze", "-m", "m", "-u", sim, "--streaming", "--sweep-type", "request_rate",
		"--sweep-list", "50,100", "--output-tokens-mean", "3", "--request-count", "6")
	if r.code != 0 {
		t.Fatalf("rate sweep: exit %d\n%s", r.code, r.stderr)
	}
	if rows := analyzeCSV(t, dir); len(rows) != 3 || rows[0][1] != "Request Rate" {
		t.Errorf("rate sweep CSV: %v", rows)
	}
	if _, err := os.Stat(filepath.Join(dir, "artifacts", "m-openai-chat-request_rate100")); err != nil {
		t.Errorf("rate point folder: %v", err)
	}
}

func TestAnalyzeBadInputExitsTwo(t *testing.T) {
	cases := [][]string{
		{"--sweep-range", "1:100"},
		{"--sweep-range", "1:64:2"},
		{"--sweep-range", "a:b"},
		{"--sweep-list", "1,x"},
		{"--sweep-range", "1:8", "--sweep-list", "1,2"},
		{"--sweep-type", "batch_size"},
		{"--sweep-type", "num_dataset_entries"},
		{"--concurrency", "4"},
		{"--sweep-type", "request_rate", "--request-rate", "5"},
		{"--sweep-type", "input_sequence_length", "--input-file", "prompts.jsonl"},
		{"--fixed-schedule", "true", "--input-file", "payload:trace.jsonl"},
		{"--sweep-list", "1,2", "--request-count", "-3"},
	}
	for _, args := range cases {
		r := runCLI(t, t.TempDir(), append([]string{"analyze", "-m", "m", "-u", "sim://"}, args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || len(lines) != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, r.code, r.stderr)
		}
	}
}

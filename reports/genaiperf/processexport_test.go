package genaiperf

import (
	"os"
	"path/filepath"
	"testing"
)

// Three runs' statistics files, by hand: throughputs summed (10 + 12.5 +
// 7.5 = 30 req/s; 100 + 125 + 75 = 300 tok/s); power averaged over the
// runs that saw the GPU ((300 + 330) / 2 = 315 W for "0", 280 W for "1"
// seen by one run); memory used, a maximum (41 GB); the field order
// GenAI-Perf's whatever the file's.
func TestAggregateRuns(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		`{"request_throughput": {"unit": "requests/sec", "avg": 10}, "output_token_throughput": {"unit": "tokens/sec", "avg": 100},
		  "telemetry_stats": {"gpu_memory_used": {"unit": "GB", "0": {"avg": 40, "max": 44}}, "gpu_power_usage": {"unit": "W", "0": {"avg": 300, "p99": 350}}}}`,
		`{"request_throughput": {"unit": "requests/sec", "avg": 12.5}, "output_token_throughput": {"unit": "tokens/sec", "avg": 125},
		  "telemetry_stats": {"gpu_power_usage": {"unit": "W", "0": {"avg": 330}, "1": {"avg": 280}}, "gpu_memory_used": {"unit": "GB", "0": {"avg": 41}}}}`,
		`{"request_throughput": {"unit": "requests/sec", "avg": 7.5}, "output_token_throughput": {"unit": "tokens/sec", "avg": 75}}`,
	}
	var runs []ExportRun
	for i, f := range files {
		sub := filepath.Join(dir, string(rune('a'+i)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"profile_export.json": "{}", "profile_export_genai_perf.json": f, "inputs.json": "{}"} {
			if err := os.WriteFile(filepath.Join(sub, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	runs, err := FindExportRuns(dir)
	if err != nil || len(runs) != 3 || filepath.Base(runs[0].Export) != "profile_export.json" {
		t.Fatalf("runs %v, %v", runs, err)
	}
	agg, err := AggregateRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if agg.RequestThroughput != 30 || agg.OutputTokenThroughput != 300 {
		t.Errorf("throughputs %v, %v", agg.RequestThroughput, agg.OutputTokenThroughput)
	}
	b, err := marshal(agg.Telemetry, pythonIndent)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "gpu_power_usage": {
    "unit": "W",
    "0": {
      "avg": 315.0
    },
    "1": {
      "avg": 280.0
    }
  },
  "gpu_memory_used": {
    "unit": "GB",
    "0": {
      "avg": 41.0
    }
  }
}`
	if string(b) != want {
		t.Errorf("telemetry\n%s\nwant\n%s", b, want)
	}
	if _, err := FindExportRuns(t.TempDir()); err == nil {
		t.Error("an empty folder was accepted")
	}
}

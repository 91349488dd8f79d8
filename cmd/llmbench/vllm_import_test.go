package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A `vllm bench serve --save-detailed` result is imported where a
// GenAI-Perf export is: `report --view vllm` recomputes, from its
// per-request values, the numbers vllm bench printed from the same
// requests (its own fields in the file), and `compare` takes it as a
// baseline. Throughput is left out: vllm bench divides by its own
// benchmark duration (from before the first request to after the last
// task ends), llmbench by the first send to the last answer.
func TestVLLMBenchImport(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../runtime/vllmbench/testdata/vllm-bench-serve.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "vllm-bench-serve.json") // report writes beside it
	writeFileIn(t, dir, "vllm-bench-serve.json", string(b))
	var own map[string]any
	if err := json.Unmarshal(b, &own); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", src, "--view", "vllm")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct{ label, field string }{
		{"Successful requests:", "completed"}, {"Total input tokens:", "total_input_tokens"},
		{"Total generated tokens:", "total_output_tokens"},
		{"Mean TTFT (ms):", "mean_ttft_ms"}, {"Median TTFT (ms):", "median_ttft_ms"}, {"P99 TTFT (ms):", "p99_ttft_ms"},
		{"Mean TPOT (ms):", "mean_tpot_ms"}, {"Median TPOT (ms):", "median_tpot_ms"}, {"P99 TPOT (ms):", "p99_tpot_ms"},
		{"Mean ITL (ms):", "mean_itl_ms"}, {"Median ITL (ms):", "median_itl_ms"}, {"P99 ITL (ms):", "p99_itl_ms"},
	} {
		v := own[c.field].(float64)
		want := fmt.Sprintf("%-40s %-10.2f", c.label, v)
		if v == float64(int64(v)) && !strings.Contains(c.field, "_ms") {
			want = fmt.Sprintf("%-40s %-10d", c.label, int64(v))
		}
		if !strings.Contains(r.stdout, strings.TrimSpace(want)) {
			t.Errorf("report lacks %q (vllm bench's %s)\n%s", want, c.field, r.stdout)
		}
	}
	cmp := runCLI(t, dir, "compare", src, src, "--metrics", "ttft.p50,itl.p50")
	if cmp.code != 0 || !strings.Contains(cmp.stdout, "no significant change") {
		t.Errorf("compare of the result with itself: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stages() run prints a per-stage table, writes each stage into
// summary.json (their requests adding up to the point's), judges a stage
// gate, and `report` re-reads the stored run into the same per-stage
// table: the stages survive the records.
func TestStagesRunAndReread(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := filepath.Join(dir, "staged.star")
	if err := os.WriteFile(scenario, []byte(`
def main(ctx):
    return experiment(name = "staged", endpoint = sim(ttft = "5ms", itl = "1ms"),
        dataset = synthetic(input_tokens = fixed(20), output_tokens = fixed(8)),
        traffic = stages([("400ms", 20, "up"), ("400ms", 20, "hold"), ("400ms", 0)], over = "rate", arrival = "constant"),
        gates = ["error_rate < 1% @ stage=hold", "ttft.p99 < 10s @ stage=2"])
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", scenario, "--no-plots")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	live := stageTable(r.stdout)
	// ∫rate per stage: 4, 8, 4 requests on a constant schedule.
	for _, want := range []string{"0   up                 20        4", "1   hold               20        8", "2   stage 2             0        4"} {
		if !strings.Contains(live, want) {
			t.Errorf("per-stage table lacks %q:\n%s", want, live)
		}
	}
	if !strings.Contains(r.stdout, "✓ error_rate < 1% @ stage=hold") || !strings.Contains(r.stdout, "2 of 2 gates passed") {
		t.Errorf("stage gates:\n%s", r.stdout)
	}
	var summary struct {
		Experiments []struct {
			Points []struct {
				Requests struct{ Completed int } `json:"requests"`
				Stages   []struct {
					Label    string                  `json:"label"`
					Requests struct{ Completed int } `json:"requests"`
				} `json:"stages"`
			} `json:"points"`
		} `json:"experiments"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil || json.Unmarshal(b, &summary) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	pt := summary.Experiments[0].Points[0]
	if len(pt.Stages) != 3 || pt.Stages[1].Label != "hold" ||
		pt.Stages[0].Requests.Completed+pt.Stages[1].Requests.Completed+pt.Stages[2].Requests.Completed != pt.Requests.Completed {
		t.Errorf("summary.json stages %+v of %d requests", pt.Stages, pt.Requests.Completed)
	}
	re := runCLI(t, dir, "report", "out")
	if re.code != 0 {
		t.Fatalf("report: exit %d\n%s%s", re.code, re.stdout, re.stderr)
	}
	if got := stageTable(re.stdout); got != live {
		t.Errorf("report re-reads the stages as\n%s\nthe run printed\n%s", got, live)
	}
}

// stageTable is the console's "Per stage:" block.
func stageTable(out string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Per stage:"):
			in = true
		case in && !strings.HasPrefix(line, "               "):
			return b.String()
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

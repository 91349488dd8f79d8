package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
)

// profile --request-count auto stops on the steady-state rule or its cap,
// writes its rows as they finish and the warm-up cut in the saved point
// record, whose first rows the stored-run reader flags, says what the
// rule did, and `llmbench
// report` re-renders its numbers byte for byte from the records alone.
// Whether the rule converges before the cap depends on the machine's
// noise (on a loaded 2-core machine the run went on to 10,000 requests
// and past the suite's timeout), so the test holds the wiring for either
// outcome under a cap; when the rule converges is runtime's and
// metrics' tests' to say, on planned data.
func TestProfileRequestCountAuto(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?ttft=20ms&itl=5ms&jitter=0.05",
		"--streaming", "--concurrency", "8", "--request-count", "auto", "--steady-ci", "0.1",
		"--steady-max-requests", "1500", "--output-tokens-mean", "8", "--synthetic-input-tokens-mean", "20")
	said := steadyLine(r.stdout)
	if r.code != 0 || said == "" {
		t.Fatalf("profile: exit %d, want a steady-state line\n%s%s", r.code, r.stdout, r.stderr)
	}
	point := filepath.Join(dir, "artifacts", "org_m-openai-chat-concurrency8")
	recs, meta := readRecords(t, filepath.Join(point, "records.parquet"))
	var saved runtime.PointRecord
	if err := json.Unmarshal([]byte(meta.PointRecord), &saved); err != nil || saved.Steady == nil {
		t.Fatalf("saved point record %q: %v", meta.PointRecord, err)
	}
	s := saved.Steady
	stored, err := storedrun.OpenFile(nil, filepath.Join(point, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	flagged, row := 0, 0
	err = stored.Each(func(rec *metrics.Record) error {
		if recs[row].Warmup {
			t.Errorf("row %d written flagged: rows are written before the cut is known", row)
		}
		if rec.Warmup != (row < s.Warmup) {
			t.Errorf("row %d read as warmup=%v, want the first %d", row, rec.Warmup, s.Warmup)
		}
		if rec.Warmup {
			flagged++
		}
		row++
		return nil
	})
	if err != nil || flagged != s.Warmup || len(recs) != s.Measured || s.Requests < 100 || s.Requests > 1500+8 {
		t.Errorf("%d rows, %d read as warm-up (%v); saved %+v", len(recs), flagged, err, s)
	}
	if converged := strings.HasPrefix(said, "Steady state: converged after "); converged != s.Converged {
		t.Errorf("console %q, saved converged=%v", said, s.Converged)
	}
	name := "profile_export_genai_perf.json"
	original, err := os.ReadFile(filepath.Join(point, name))
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(point, name))
	rep := runCLI(t, dir, "report", filepath.Join(dir, "artifacts"))
	if got, _ := os.ReadFile(filepath.Join(point, name)); rep.code != 0 || !bytes.Equal(got, original) {
		t.Errorf("report: exit %d; %s re-rendered differs\n got %s\nwant %s", rep.code, name, got, original)
	}
	if got := steadyLine(rep.stdout); got != said {
		t.Errorf("report says %q of the rule, the run said %q", got, said)
	}
}

// profile --measurement-interval measures perf_analyzer's windows until
// the last three agree within --stability-percentage (at most 10): the
// saved outcome holds the windows, the requests of the windows before the
// deciding three are the warm-up (the first rows, flagged), the reported
// count is the rest, and the console says what the rule did, as report
// says it again from the records. How many windows it takes is the
// machine's to decide; the test holds the wiring for any outcome.
func TestProfileStabilityWindows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?ttft=2ms&itl=1ms", "--streaming", "--concurrency", "4",
		"-p", "300", "--output-tokens-mean", "8", "--synthetic-input-tokens-mean", "20")
	said := steadyLine(r.stdout)
	if r.code != 0 || said == "" {
		t.Fatalf("profile: exit %d, want a steady-state line\n%s%s", r.code, r.stdout, r.stderr)
	}
	point := filepath.Join(dir, "artifacts", "org_m-openai-chat-concurrency4")
	recs, meta := readRecords(t, filepath.Join(point, "records.parquet"))
	var saved runtime.PointRecord
	if err := json.Unmarshal([]byte(meta.PointRecord), &saved); err != nil || saved.Steady == nil || saved.Steady.Rule.Stability == nil {
		t.Fatalf("saved point record %q: %v", meta.PointRecord, err)
	}
	s := saved.Steady
	ws := s.Check.Windows
	if rule := s.Rule.Stability; rule.Window != 300e6 || rule.Percentage != 999 || rule.MaxWindows != 10 || len(ws) < 3 || len(ws) > 10 {
		t.Fatalf("rule %+v, %d windows", rule, len(ws))
	}
	before := 0
	for _, w := range ws[:len(ws)-3] {
		before += w.Requests
	}
	flagged := 0
	for _, rec := range recs {
		if rec.Warmup {
			flagged++
		}
	}
	if s.Warmup != before || len(recs) != s.Measured || flagged != 0 {
		t.Errorf("warm-up %d, want the %d requests of the windows before the last three; %d rows of %d measured, %d written flagged", s.Warmup, before, len(recs), s.Measured, flagged)
	}
	var export struct {
		RequestCount struct{ Avg float64 } `json:"request_count"`
	}
	b, _ := os.ReadFile(filepath.Join(point, "profile_export_genai_perf.json"))
	if err := json.Unmarshal(b, &export); err != nil || int(export.RequestCount.Avg) != s.Measured-s.Warmup {
		t.Errorf("request_count %v, want the %d measured less the %d warm-up (%v)", export.RequestCount.Avg, s.Measured, s.Warmup, err)
	}
	if stable := strings.HasPrefix(said, "Steady state: stable after "); stable != s.Converged {
		t.Errorf("console %q, saved converged=%v", said, s.Converged)
	}
	if rep := runCLI(t, dir, "report", filepath.Join(dir, "artifacts")); rep.code != 0 || steadyLine(rep.stdout) != said {
		t.Errorf("report: exit %d, says %q of the rule, the run said %q", rep.code, steadyLine(rep.stdout), said)
	}
}

// steadyLine is what the console says of the steady-state rule: its
// "Steady state: converged ..." line, or the not-converged warning; ""
// when neither.
func steadyLine(stdout string) string {
	for line := range strings.Lines(stdout) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Steady state: ") || strings.HasPrefix(line, "WARNING: steady state NOT ") {
			return line
		}
	}
	return ""
}

// A run whose rule cannot be met under its cap warns that the point did
// not converge, and summary.json says so with the widths reached.
func TestRunAutoNotConverged(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = sim(ttft = "2ms", itl = "1ms", jitter = 0.5),
                      dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)),
                      traffic = concurrency(2), requests = "auto",
                      steady_state = steady(ci = "1%", min_requests = 50, max_requests = 120))
`)
	r := runCLI(t, dir, "run", file, "--no-plots")
	if r.code != 0 || !strings.Contains(r.stdout, "WARNING: steady state NOT converged: cap reached after 120 requests") {
		t.Fatalf("run: exit %d, want the not-converged warning\n%s%s", r.code, r.stdout, r.stderr)
	}
	if page, _ := os.ReadFile(filepath.Join(dir, "out", "report.html")); !bytes.Contains(page, []byte("Steady state not reached")) {
		t.Error("report.html does not warn that the point did not converge")
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Points []struct {
				Requests struct{ Completed, Warmup int }
				Steady   *runtime.SteadyOutcome `json:"steady_state"`
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Experiments) != 1 || len(doc.Experiments[0].Points) != 1 {
		t.Fatalf("summary.json: %v\n%s", err, b)
	}
	if r := runCLI(t, dir, "run", file, "--no-plots", "--resume"); r.code != 0 || !strings.Contains(r.stdout, "WARNING: steady state NOT converged") {
		t.Errorf("resume: exit %d, want the point skipped with its warning\n%s%s", r.code, r.stdout, r.stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "out", "summary.json")); !bytes.Equal(again, b) {
		t.Errorf("summary.json after --resume differs (the checkpoint lost the steady state):\n%s\nwant\n%s", again, b)
	}
	p := doc.Experiments[0].Points[0]
	if s := p.Steady; s == nil || s.Converged || s.Requests != 120 || len(s.Check.Widths) != 4 || s.Warmup != p.Requests.Warmup ||
		p.Requests.Completed+p.Requests.Warmup != 120 {
		t.Errorf("point %+v, steady %+v: want not converged at 120, four widths, warm-up counted once", p.Requests, p.Steady)
	}
}

// Bad --request-count and --steady-* values exit 2 naming the flag.
func TestRequestCountAutoBadInput(t *testing.T) {
	for args, want := range map[string]string{
		"--request-count many":                             `--request-count: got "many", want a whole number or "auto"`,
		"--request-count auto --steady-ci 0.7":             "--steady-ci: got 0.7, want a share between 0 and 0.5 such as 0.05",
		"--request-count auto --steady-max-requests 50":    "--steady-max-requests: got 50, want >= --steady-min-requests (100)",
		"--request-count auto --measurement-interval 1000": "--request-count auto and --measurement-interval are mutually exclusive",
		"--measurement-interval 500 -s 0":                  "--stability-percentage: got 0, want a positive share",
	} {
		r := runCLI(t, t.TempDir(), append([]string{"profile", "-m", "m", "-u", "sim://"}, strings.Fields(args)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s", args, r.code, want, r.stderr)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// abSlowerCandidate is an A/B experiment of 4 rounds a side whose
// candidate's ITL (6 ms) is twice the baseline's (3 ms).
const abSlowerCandidate = `
def main(ctx):
    return experiment("chat", sim(itl = "6ms", ttft = "2ms"), synthetic(32, 8), concurrency(2),
                      requests = 16, warmup = 1, gates = ["itl.p50 <= baseline * 1.10"],
                      ab = ab(sim(itl = "3ms", ttft = "2ms"), rounds = 4))
`

// An A/B scenario writes each side's usual files under <point>/a and
// <point>/b (each round a run, as repeats are), judges its baseline gate
// paired over the rounds (compare.json and gates.json name the method),
// draws the per-round plot, and exits 1 on a regression: here the
// candidate's ITL is twice the baseline's.
func TestABScenarioWritesBothSidesAndJudgesPaired(t *testing.T) {
	dir, file := writeScenario(t, abSlowerCandidate)
	r := runCLI(t, dir, "run", file, "--out", "out")
	if r.code != 1 || !strings.Contains(r.stdout, "regression") {
		t.Fatalf("exit %d; want 1 for a regression\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	point := filepath.Join(dir, "out", "chat", "concurrency2")
	for _, side := range []string{"a", "b"} {
		for _, f := range []string{"records.parquet", "profile_export_genai_perf.json", "profile_export_genai_perf.csv", "inputs.json",
			"repeat2/records.parquet", "repeat4/profile_export_genai_perf.json"} {
			if _, err := os.Stat(filepath.Join(point, side, f)); err != nil {
				t.Errorf("side %s: %v", side, err)
			}
		}
	}
	for side, url := range map[string]string{"a": "sim://?itl=3ms&ttft=2ms", "b": "sim://?itl=6ms&ttft=2ms"} { // each side's files describe its own endpoint
		var gp struct {
			InputConfig struct{ Endpoint struct{ URL string } } `json:"input_config"`
		}
		readJSON(t, filepath.Join(point, side, "profile_export_genai_perf.json"), &gp)
		if gp.InputConfig.Endpoint.URL != url {
			t.Errorf("side %s's GenAI-Perf JSON names %q, want %q", side, gp.InputConfig.Endpoint.URL, url)
		}
	}
	for _, round := range []string{"", "repeat2", "repeat3", "repeat4"} { // the same prompts on both sides, round by round
		a, errA := os.ReadFile(filepath.Join(point, "a", round, "inputs.json"))
		b, errB := os.ReadFile(filepath.Join(point, "b", round, "inputs.json"))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("round %q: inputs.json differ between the sides (%v, %v)", round, errA, errB)
		}
	}
	if _, err := os.Stat(filepath.Join(point, "plots", "rounds-chat-concurrency2-itl_p50.png")); err != nil {
		t.Errorf("round plot: %v", err)
	}
	var cmp struct {
		Points []struct {
			Metrics []struct{ Metric, Method, Verdict string }
		}
	}
	readJSON(t, filepath.Join(dir, "out", "compare.json"), &cmp)
	if len(cmp.Points) != 1 || cmp.Points[0].Metrics[0].Metric != "itl.p50" || cmp.Points[0].Metrics[0].Method != "paired-rounds" ||
		cmp.Points[0].Metrics[0].Verdict != "regression" {
		t.Errorf("compare.json: %+v; want itl.p50 a regression by paired-rounds", cmp)
	}
	gates, err := os.ReadFile(filepath.Join(dir, "out", "gates.json"))
	if err != nil || !strings.Contains(string(gates), `"method": "paired-rounds"`) || !strings.Contains(string(gates), `"failed": 1`) {
		t.Errorf("gates.json: %v\n%s", err, gates)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "out", "report.html")); err != nil || !strings.Contains(string(html), "data:image/png") {
		t.Errorf("report.html embeds no plot of side b (%v)", err)
	}
	if !strings.Contains(r.stdout, "side b, round 4 of 4") {
		t.Errorf("stdout names no side and round:\n%s", r.stdout)
	}
	// `report` rebuilds the run from its records as the run judged it:
	// side B's rounds paired with side A's, its page where the run's was.
	if err := os.Remove(filepath.Join(dir, "out", "report.html")); err != nil {
		t.Fatal(err)
	}
	if rep := runCLI(t, dir, "report", "out"); rep.code != 0 {
		t.Fatalf("report: exit %d\n%s", rep.code, rep.stderr)
	}
	html, err := os.ReadFile(filepath.Join(dir, "out", "report.html"))
	if err != nil || !strings.Contains(string(html), "paired-rounds") || strings.Contains(string(html), "no baseline to compare") {
		t.Errorf("report's page does not judge the rounds paired (%v)", err)
	}
	// compare reads one run a side: the A/B run's folder is refused, naming its sides.
	if c := runCLI(t, dir, "compare", "out", "out"); c.code != 2 || !strings.Contains(c.stderr, "both sides of the interleaved A/B point chat / concurrency2") {
		t.Errorf("compare of an A/B run: exit %d\n%s", c.code, c.stderr)
	}
}

// An A/B run whose baseline is down stops before sending anything, exit
// 3, naming the side and its address; unusable rounds and modes are exit
// 2 naming the flag or the scenario's line and column.
func TestABBadInput(t *testing.T) {
	r := runCLI(t, t.TempDir(), "ab", "-m", "m", "-u", "sim://", "--baseline-url", "127.0.0.1:1", "--request-count", "8", "--streaming")
	if r.code != 3 || !strings.Contains(r.stderr, "side a, the baseline (ab=, --baseline-url) 127.0.0.1:1: target unreachable") {
		t.Errorf("baseline down: exit %d, stderr %q; want 3 naming side a and its address", r.code, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rounds", "1"}, "--rounds: got 1, want 2 or more"},
		{[]string{"--ab-mode", "zigzag"}, `--ab-mode: got "zigzag", want abba or duet`},
		{[]string{"--request-count", "4"}, "--rounds: got 8 rounds for 4 requests per side"},
	} {
		args := append([]string{"ab", "-m", "m", "-u", "sim://", "--baseline-url", "sim://", "--request-count", "16"}, c.args...)
		r := runCLI(t, t.TempDir(), args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment("x", sim(), synthetic(10, 10), concurrency(1),
                      ab = ab(sim(), mode = "zigzag"))
`)
	r = runCLI(t, dir, "run", file)
	if r.code != 2 || !strings.Contains(r.stderr, "s.star:4:38: ab: for parameter mode: got \"zigzag\"") {
		t.Errorf("scenario: exit %d, stderr %q; want 2 at s.star:4:38", r.code, r.stderr)
	}
}

// An A/B experiment alternates its rounds on one machine: --shard is
// refused naming it, before anything is sent.
func TestABRefusesShards(t *testing.T) {
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment("x", endpoint("http://127.0.0.1:9", "m"), synthetic(10, 10), concurrency(2),
                      ab = endpoint("http://127.0.0.1:9", "m"))
`)
	r := runCLI(t, dir, "run", file, "--shard", "0/2", "--start-at", "2030-01-01T00:00:00Z")
	if r.code != 2 || !strings.Contains(r.stderr, `experiment "x": an A/B experiment (ab=) alternates its two endpoints' rounds on one machine and cannot run under --shard`) {
		t.Errorf("exit %d, stderr %q; want 2 refusing --shard", r.code, r.stderr)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// `llmbench sim --drift` takes the wave form and refuses a malformed one
// naming the flag.
func TestSimDriftWaveFlag(t *testing.T) {
	r := runCLI(t, t.TempDir(), "sim", "--addr", "127.0.0.1:0", "--drift", "sine(10%)")
	if r.code != 2 || !strings.Contains(r.stderr, "--drift: drift \"sine(10%)\": want sine(AMPLITUDE, PERIOD)") {
		t.Errorf("exit %d, stderr %q; want 2 naming --drift", r.code, r.stderr)
	}
}

// --resume of an interrupted A/B run keeps the leading pairs of rounds
// the checkpoint holds whole and measures the rest on both sides: a pair
// whose second round was lost (here round 3: A ran, B did not) is
// measured again on both sides, so each pair is still two rounds measured
// side by side, and the verdict is judged over all four pairs.
func TestABResumeTakesWholePairs(t *testing.T) {
	dir, file := writeScenario(t, abSlowerCandidate)
	if r := runCLI(t, dir, "run", file, "--out", "out"); r.code != 1 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	path := filepath.Join(dir, "out", "checkpoint.json")
	var cp struct {
		Version int               `json:"version"`
		Points  []json.RawMessage `json:"points"`
	}
	readJSON(t, path, &cp)
	kept := cp.Points[:0]
	for _, p := range cp.Points {
		var point struct{ Dir string }
		if err := json.Unmarshal(p, &point); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(point.Dir, filepath.Join("b", "repeat3")) && !strings.HasSuffix(point.Dir, "repeat4") {
			kept = append(kept, p)
		}
	}
	cp.Points = kept
	b, err := json.Marshal(cp)
	if err != nil || os.WriteFile(path, b, 0o644) != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", file, "--out", "out", "--resume")
	if r.code != 1 {
		t.Fatalf("resumed run: exit %d; want 1 for the regression\n%s", r.code, r.stderr)
	}
	for _, round := range []string{"side a, round 1", "side b, round 1", "side a, round 2", "side b, round 2"} {
		if !strings.Contains(r.stdout, "chat / concurrency2, "+round+" of 4 found in checkpoint - skipping") {
			t.Errorf("%s not taken from the checkpoint:\n%s", round, r.stdout)
		}
	}
	if strings.Count(r.stdout, "found in checkpoint") != 4 {
		t.Errorf("want exactly the two whole pairs taken from the checkpoint:\n%s", r.stdout)
	}
	gates, err := os.ReadFile(filepath.Join(dir, "out", "gates.json"))
	if err != nil || !strings.Contains(string(gates), `"method": "paired-rounds"`) || !strings.Contains(string(gates), `"failed": 1`) {
		t.Errorf("gates.json: %v\n%s", err, gates)
	}
}

// report judges an interrupted A/B run on the pairs it has, as the run
// did: with side A's last round lost, side B's last round has no pair
// and is left out, so the verdict equals the one with both lost.
func TestABReportJudgesWholePairs(t *testing.T) {
	dir, file := writeScenario(t, abSlowerCandidate)
	if r := runCLI(t, dir, "run", file, "--out", "out"); r.code != 1 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	verdict := func(name string, lost ...string) string {
		out := filepath.Join(dir, name)
		copyTree(t, filepath.Join(dir, "out"), out)
		for _, side := range lost {
			if err := os.RemoveAll(filepath.Join(out, "chat", "concurrency2", side, "repeat4")); err != nil {
				t.Fatal(err)
			}
		}
		if r := runCLI(t, dir, "report", name); r.code != 0 {
			t.Fatalf("report %s: exit %d\n%s", name, r.code, r.stderr)
		}
		page, err := os.ReadFile(filepath.Join(out, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`itl\.p50 = [^<]*`).FindString(string(page))
	}
	aLost, bothLost := verdict("a-lost", "a"), verdict("both-lost", "a", "b")
	if aLost == "" || aLost != bothLost {
		t.Errorf("side A's last round lost: %q; both last rounds lost: %q; want the same three pairs judged", aLost, bothLost)
	}
}

package main

import (
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// TestHugeSizesAreRefusedByName: sizes that crashed llmbench with a fatal
// out-of-memory (and a scenario check let through) are refused before
// anything is drawn or sent, exit 2, naming the flag or the field and the
// memory they would take. Run under a 10 GiB address-space limit, so a
// regression fails here instead of taking the machine's memory.
func TestHugeSizesAreRefusedByName(t *testing.T) {
	profile := []string{"profile", "-m", "m", "-u", "sim://"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--endpoint-type", "rankings", "-b", "1000000000"}, "--batch-size-text 1000000000: 100 queries with 1000000000 passages of about 550 tokens each need about 2.7 PiB of memory"},
		{[]string{"--session-concurrency", "1", "--session-turns-mean", "1000000000"}, "--session-turns-mean 1000000000: 100 sessions of about 1000000000 turns"},
		{[]string{"--session-concurrency", "1", "--num-sessions", "1000000000000"}, "--num-sessions 1000000000000: 1000000000000 sessions"},
		{[]string{"--num-dataset-entries", "1000000000"}, "--num-dataset-entries 1000000000: 1000000000 prompts of about 550 tokens need about 28.0 TiB"},
	} {
		r := runCapped(t, t.TempDir(), nil, append(profile, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "fatal error") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	for _, c := range []struct{ field, want string }{
		{"sessions = 1000000000", "s.star:5:9: experiment: for parameter dataset: sessions=1000000000: 1000000000 sessions of about 3 turns"},
		{"turns = fixed(1000000000)", "turns=1000000000: 100 sessions of about 1000000000 turns"},
		{"system_prompt_tokens = 1000000000", "system_prompt_tokens=1000000000: 1 system prompts of 1000000000 tokens"},
	} {
		turns := "turns = fixed(3), "
		if strings.HasPrefix(c.field, "turns") {
			turns = ""
		}
		_, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "c", endpoint = endpoint(url = "sim://", model = "m"),
        traffic = concurrency(2), sessions = 4,
        dataset = conversations(`+turns+`input_tokens = fixed(20), output_tokens = fixed(4), `+c.field+`))
`)
		for _, cmd := range []string{"check", "run"} {
			r := runCapped(t, t.TempDir(), nil, cmd, file)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s with %s: exit %d, stderr %q; want exit 2 with %q", cmd, c.field, r.code, r.stderr, c.want)
			}
		}
	}
}

// TestSlowRateIsRefusedAlike: rate(1e-9) in a scenario planned its first
// send decades ahead and the run hung, where the CLI refused
// --request-rate 1e-9; one rule now refuses both, and users() too.
func TestSlowRateIsRefusedAlike(t *testing.T) {
	for _, traffic := range []string{"rate(1e-9)", "users(2, qps = 1e-9)"} {
		_, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m"), requests = 5,
        dataset = synthetic(input_tokens = 8, output_tokens = 4), traffic = `+traffic+`)
`)
		for _, cmd := range []string{"check", "run"} {
			r := runCLI(t, t.TempDir(), cmd, file)
			if r.code != 2 || !strings.Contains(r.stderr, "for parameter traffic: 5 requests at 1e-09 per second would take 5e+09 s, more than a day") {
				t.Errorf("%s with %s: exit %d, stderr %q", cmd, traffic, r.code, r.stderr)
			}
		}
	}
	r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", "sim://", "--request-rate", "1e-9", "--request-count", "5")
	if r.code != 2 || !strings.Contains(r.stderr, "--request-rate 1e-09: 5 requests at 1e-09 per second would take 5e+09 s, more than a day") {
		t.Errorf("profile --request-rate 1e-9: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestEmptySweepListIsRefused: `--sweep-list ""` ran the default sweep of
// eleven points against the server; it is a flag error now.
func TestEmptySweepListIsRefused(t *testing.T) {
	for _, list := range []string{"--sweep-list=", "--sweep-list= , "} {
		dir := t.TempDir()
		r := runCLI(t, dir, "analyze", "-m", "m", "-u", "sim://", "--request-count", "2", list)
		if r.code != 2 || !strings.Contains(r.stderr, "--sweep-list") {
			t.Errorf("%s: exit %d, stderr %q", list, r.code, r.stderr)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "artifacts", "*")); len(m) > 0 {
			t.Errorf("%s measured: %v", list, m)
		}
	}
}

// TestRunUnderAnAddressSpaceLimit: llmbench mapped 4 GiB at start for
// go.starlark.net's small integers, so under `ulimit -v 6G` a run died
// creating a thread after 25 MB; now it runs, and check runs under 2 GB
// without the interpreter's "failed to allocate 4GB" on stderr.
func TestRunUnderAnAddressSpaceLimit(t *testing.T) {
	t.Parallel()
	if goruntime.GOOS != "linux" {
		t.Skip("ulimit -v is Linux's")
	}
	scenario, err := filepath.Abs(filepath.Join("..", "..", "scenarios", "quickstart.star"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit string
		args  []string
	}{
		{"6291456", []string{"run", scenario, "-D", "requests=20", "--out", filepath.Join(t.TempDir(), "out")}},
		{"2000000", []string{"check", scenario}},
	} {
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -v ` + c.limit + ` && exec "$0" "$@"`, binary}, c.args...)...)
		r := runCommand(t, cmd, t.TempDir(), nil)
		// Nor does it pass on the interpreter's log line about its fallback.
		if r.code != 0 || strings.Contains(r.stderr, "pthread_create failed") || strings.Contains(r.stderr, "Starlark failed") {
			t.Errorf("%s under ulimit -v %s: exit %d, stderr %q", c.args[0], c.limit, r.code, r.stderr)
		}
	}
}

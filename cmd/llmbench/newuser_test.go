package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `llmbench` with nothing else is a new user's first try: it prints the
// help and exits 0 (it was kong's "expected one of ..." and exit 2).
func TestNoArgumentsPrintsHelp(t *testing.T) {
	r := runCLI(t, t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "Usage: llmbench <command>") || !strings.Contains(r.stdout, "profile") || r.stderr != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// GenAI-Perf's compare flags are exit 2 with what to use instead, as
// arguments after `--` are, not kong's bare "unexpected argument"; a
// config file that is not there is exit 2 naming it, whatever flags come
// before the command.
func TestGenAIPerfCommandsSayWhatToUse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"config", "-f", "no-such-config.yaml"}, []string{"config -f:", "no-such-config.yaml"}},
		{[]string{"compare", "--files", "a.json", "b.json"}, []string{"compare --files:", "llmbench compare BASELINE CANDIDATE"}},
		{[]string{"compare", "-f", "a.json", "b.json"}, []string{"compare -f:", "llmbench compare BASELINE CANDIDATE"}},
		{[]string{"compare", "--config=c.yaml"}, []string{"compare --config:", "llmbench compare BASELINE CANDIDATE"}},
		{[]string{"--log-level", "warn", "config", "-f", "x.yaml"}, []string{"config -f:", "x.yaml"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), c.args, nil, &stdout, &stderr)
		if code != exitInvalidInput {
			t.Errorf("%v: exit %d, stderr %s", c.args, code, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr.String(), w)
			}
		}
	}
}

// run ends by saying where its report, summary and verdicts went (and
// the files asked for by flag), paths a user can open as printed.
func TestRunSaysWhereFilesWent(t *testing.T) {
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?ttft=1ms&itl=1ms", model = "m"),
                      dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)),
                      traffic = concurrency(1), requests = 5, gates = ["error_rate < 1%"])
`)
	out := filepath.Join(dir, "res")
	junit := filepath.Join(dir, "junit.xml")
	r := runCLI(t, dir, "run", file, "--out", out, "--no-plots", "--junit", junit)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []struct{ label, path string }{
		{"Report:", filepath.Join(out, "report.html")},
		{"Summary:", filepath.Join(out, "summary.json")},
		{"Gates:", filepath.Join(out, "gates.json")},
		{"JUnit:", junit},
	} {
		line := lastLine(r.stdout, f.label) // the gate list also starts "Gates:"
		if strings.TrimSpace(strings.TrimPrefix(line, f.label)) != f.path {
			t.Errorf("no %q line naming %s in:\n%s", f.label, f.path, r.stdout)
		}
		if _, err := os.Stat(f.path); err != nil {
			t.Errorf("%s: %v", f.path, err)
		}
	}
}

// lastLine is the last line of text that starts with prefix, "" if none.
func lastLine(text, prefix string) string {
	last := ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			last = line
		}
	}
	return last
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario whose dataset or concurrency the machine cannot hold is
// refused by check and run alike, at the experiment's line, before any
// prompt is drawn.
func TestScenarioBeyondMachineLimits(t *testing.T) {
	for _, c := range []struct{ dataset, traffic, want string }{
		{"synthetic(input_tokens = fixed(1000000000), output_tokens = 4)", "concurrency(1)", "100 prompts of about 1000000000 tokens need about"},
		{"synthetic(input_tokens = 8, output_tokens = 4)", "concurrency(1000000000)", "open files"},
	} {
		_, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m"),
                      dataset = `+c.dataset+`, traffic = `+c.traffic+`, requests = 2)
`)
		for _, cmd := range []string{"check", "run"} {
			r := runCLI(t, t.TempDir(), cmd, file)
			if r.code != 2 || !strings.Contains(r.stderr, "s.star:3:22") || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s with %s, %s: exit %d, stderr %q", cmd, c.dataset, c.traffic, r.code, r.stderr)
			}
		}
	}
}

// writeFile writes content to a new file name in a test's temporary
// folder and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

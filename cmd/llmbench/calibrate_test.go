package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// calibrate's bad input: a slowdown of nothing or less, a scenario with no
// baseline gate to calibrate and no pairs are exit 2 naming what is
// wrong, before anything is sent; a server that is down is exit 3 naming
// it. Nothing is measured in any of them.
func TestCalibrateRefusesBadInput(t *testing.T) {
	t.Parallel()
	gate, err := filepath.Abs("../../scenarios/ci-gate.star")
	if err != nil {
		t.Fatal(err)
	}
	slo := writeFile(t, "slo.star", `def main(ctx):
    return experiment(name = "chat", endpoint = endpoint(url = "sim://", model = "m"), dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)), traffic = concurrency(1), requests = 4, gates = ["ttft.p99 < 1s"])
`)
	for _, c := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{nil, []string{gate, "--slowdown", "itl=0"}, 2, "--slowdown: itl=0: a share must be > 0"},
		{nil, []string{gate, "--slowdown", "itl=10%,ttft=0%"}, 2, "--slowdown: ttft=0%: a share must be > 0"},
		{nil, []string{gate, "--slowdown", "itl=-5%"}, 2, "--slowdown: slowdown: itl: must be >= 0, got -5%"},
		{nil, []string{gate, "--slowdown", "speed=5%"}, 2, `--slowdown: slowdown: unknown key "speed"`},
		{nil, []string{gate, "--pairs", "0"}, 2, "--pairs: got 0, want 1 or more"},
		{nil, []string{slo}, 2, "slo.star has no baseline gate"},
		{[]string{"LLM_URL=http://127.0.0.1:1/v1"}, []string{gate, "--pairs", "1"}, 3, `experiment "chat": endpoint http://127.0.0.1:1/v1: target unreachable`},
	} {
		dir := t.TempDir()
		r := runCLIEnv(t, dir, c.env, append([]string{"calibrate"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d with %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

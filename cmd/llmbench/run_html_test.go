package main

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report.html embeds the plots the run drew, the very bytes it wrote, and
// nothing else. Before, the page read each point's plots/ folder back,
// so a plot an earlier run into the same --out had left there (a
// conversation run's TTFT-by-turn plot, say) was shown as this run's.
func TestRunHTMLShowsOnlyThePlotsItDrew(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?ttft=2ms&itl=1ms", model = "m"),
                      dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)),
                      traffic = concurrency(1), requests = 8)
`)
	plots := filepath.Join(dir, "out", "e", "concurrency1", "plots")
	var page []byte
	for run := range 2 {
		if r := runCLI(t, dir, "run", file); r.code != 0 {
			t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		var err error
		if page, err = os.ReadFile(filepath.Join(dir, "out", "report.html")); err != nil {
			t.Fatal(err)
		}
		if run == 0 { // what an earlier run drew and this one does not
			png, err := os.ReadFile(filepath.Join(plots, "request_latency.png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(plots, "time_to_first_token_vs_turn.png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if bytes.Contains(page, []byte(`alt="time_to_first_token_vs_turn"`)) {
		t.Error("report.html shows a plot left in the point's folder that this run did not draw")
	}
	png, err := os.ReadFile(filepath.Join(plots, "time_to_first_token.png"))
	if err != nil {
		t.Fatal(err)
	}
	// html/template writes an attribute's "+" as "&#43;".
	if !bytes.Contains(page, []byte(strings.ReplaceAll(base64.StdEncoding.EncodeToString(png), "+", "&#43;"))) {
		t.Error("report.html does not embed the TTFT plot as written")
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/builtins"
)

// TestCheckPlanShowsSessionsUsersAndCurrency: check's plan read a
// conversation experiment stopped by `sessions = 16` as "0 requests",
// showed users(6, qps=12)'s point as "users6 ()", and a cost gate without
// the currency it is counted in.
func TestCheckPlanShowsSessionsUsersAndCurrency(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.star")
	src := `
def main(ctx):
    ep = endpoint(url="sim://", model="m")
    return [
        experiment(name="chats", endpoint=ep, traffic=concurrency(4), sessions=16,
            dataset=conversations(turns=fixed(3), input_tokens=fixed(20), output_tokens=fixed(8))),
        experiment(name="users", endpoint=ep, traffic=users(6, qps=12), duration="3s",
            dataset=synthetic(input_tokens=fixed(10), output_tokens=fixed(10)),
            cost_per_hour=3.5, currency="USD", gates=["cost_per_mtok <= 2"]),
    ]
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	scen, err := builtins.Load(file, nil, builtins.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := printPlan(&out, scen, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"per point: 16 sessions, warmup 0",
		"traffic:   users(6, qps=12)",
		"points (1): users6 (qps=12)",
		"gate:      cost_per_mtok <= 2 (USD per Mtok)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the plan lacks %q:\n%s", want, out.String())
		}
	}
}

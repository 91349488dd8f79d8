package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime/engine"
)

// merge draws the merged points' plots once, in memory, and report.html
// embeds those bytes: a plot an earlier merge left in the point's
// plots/ folder that this one did not draw (a turns plot, for requests
// of no conversation) is not shown. The shards are written by
// storedruntest: no server.
func TestMergeHTMLShowsOnlyThePlotsItDrew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		recs := storedruntest.Make(10, storedruntest.Shape{TTFT: 3 * time.Millisecond, ITL: time.Millisecond})
		plan := storedruntest.Chat("e", 20, 2) // concurrency 2: one in flight a shard
		shards = append(shards, storedruntest.Shard(t, filepath.Join(dir, fmt.Sprintf("shard%d", i)), "s.star", plan,
			engine.Shard{Index: i, Count: 2}, storedruntest.Same(recs)))
	}
	out := filepath.Join(dir, "merged")
	folder := filepath.Join(out, "e", "concurrency2", "plots")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := []byte("\x89PNG\r\n\x1a\n left by an earlier merge")
	if err := os.WriteFile(filepath.Join(folder, "time_to_first_token_vs_turn.png"), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", out)...); r.code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	encoded := func(png []byte) []byte { // html/template writes an attribute's "+" as "&#43;"
		return []byte(strings.ReplaceAll(base64.StdEncoding.EncodeToString(png), "+", "&#43;"))
	}
	if bytes.Contains(page, []byte(`alt="time_to_first_token_vs_turn"`)) || bytes.Contains(page, encoded(stale)) {
		t.Error("report.html shows a plot left in the point's folder that merge did not draw")
	}
	if ttft, err := os.ReadFile(filepath.Join(folder, "time_to_first_token.png")); err != nil || !bytes.Contains(page, encoded(ttft)) {
		t.Errorf("report.html does not embed the TTFT plot as written (%v)", err)
	}
}

package artifacts_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
)

// embeds tells whether an HTML page embeds png (html/template writes an
// attribute's "+" as "&#43;").
func embeds(page, png []byte) bool {
	return bytes.Contains(page, []byte(strings.ReplaceAll(base64.StdEncoding.EncodeToString(png), "+", "&#43;")))
}

// `llmbench report` draws each point's plots once, in memory, writes
// them and embeds those very bytes in report.html: a plot an earlier run
// left in a point's plots/ folder that this report did not draw (a
// turns plot, for requests of no conversation) is not shown.
func TestReportShowsOnlyThePlotsItDrew(t *testing.T) {
	out := t.TempDir()
	recs := storedruntest.Make(10, storedruntest.Shape{TTFT: 3 * time.Millisecond, ITL: time.Millisecond})
	storedruntest.Run(t, out, "s.star", storedruntest.Chat("e", 10), storedruntest.Same(recs))
	folder := filepath.Join(out, "e", "concurrency1", "plots")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := []byte("\x89PNG\r\n\x1a\n left by an earlier run")
	if err := os.WriteFile(filepath.Join(folder, plots.FileTTFTvsTurn), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	if found, err := artifacts.Rerender(io.Discard, io.Discard, out, "test"); !found || err != nil {
		t.Fatalf("report: found %v, %v", found, err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte(`alt="`+strings.TrimSuffix(plots.FileTTFTvsTurn, ".png")+`"`)) || embeds(page, stale) {
		t.Error("report.html shows a plot left in the point's folder that the report did not draw")
	}
	ttft, err := os.ReadFile(filepath.Join(folder, plots.FileTTFT))
	if err != nil || !embeds(page, ttft) {
		t.Errorf("report.html does not embed the TTFT plot as written (%v)", err)
	}
}

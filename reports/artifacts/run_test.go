package artifacts

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// embedded is how report.html holds b: base64, its "+" written "&#43;"
// by html/template.
func embedded(b []byte) string {
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "+", "&#43;")
}

// runReport is a two-point sweep written to a temporary OUT with every
// file asked for, its points' plots drawn as a run draws them.
func runReport(t *testing.T) *RunReport {
	t.Helper()
	dir := t.TempDir()
	results := []runtime.ExperimentResult{result(t)}
	r := &RunReport{Dir: dir, File: "s.star", Results: results, Plots: true, Drawn: &PointPlots{},
		Verdicts: &verdict.Report{Scenario: "s", Verdicts: verdict.Collect(results), Check: verdict.CheckNotDefined},
		JUnit:    filepath.Join(dir, "junit.xml"), Markdown: filepath.Join(dir, "summary.md")}
	for _, pt := range results[0].Points {
		data := plots.NewPointData()
		for _, rec := range streamed(30) {
			data.Add(&rec)
		}
		r.Drawn.draw(io.Discard, pointDir(dir, "e", pt.Params), "e / "+pt.Params.Label(), "", data, nil)
	}
	return r
}

// A run's console (the sweep table, the gates) and its file list, byte
// for byte, and every file it lists written.
func TestRunReportGolden(t *testing.T) {
	r := runReport(t)
	var console bytes.Buffer
	if err := r.Write(&console, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFileList(&console); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "run_console.txt", []byte(strings.ReplaceAll(console.String(), r.Dir, "OUT")))
	for _, f := range r.Files() {
		if fi, err := os.Stat(f.Path); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %s not written (%v)", f.What, f.Path, err)
		}
	}
}

// report.html embeds the plots as drawn, the bytes written beside it:
// the sweep plots and each point's, none read back. A point drawn by an
// earlier run (not in Drawn) has its files read; a point this run drew
// nothing of shows nothing, whatever its folder holds.
func TestReportEmbedsPlotsAsDrawn(t *testing.T) {
	r := runReport(t)
	first := filepath.Join(pointDir(r.Dir, "e", r.Results[0].Points[0].Params), plotsDir)
	second := filepath.Join(pointDir(r.Dir, "e", r.Results[0].Points[1].Params), plotsDir)
	ttft := filepath.Join(first, plots.FileTTFT)
	drawn, err := os.ReadFile(ttft)
	if err != nil {
		t.Fatal(err)
	}
	other := tinyPNG(t)
	if err := os.WriteFile(ttft, other, 0o644); err != nil { // changed on disk after it was drawn
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(second, plots.FileTTFTvsTurn), other, 0o644); err != nil { // left by an earlier run
		t.Fatal(err)
	}
	page := writeHTML(t, r)
	sweep, _ := filepath.Glob(filepath.Join(r.Dir, "e-*.png"))
	if len(sweep) == 0 || !strings.Contains(page, embedded(drawn)) || strings.Contains(page, embedded(other)) {
		t.Errorf("%d sweep plots; the page embeds the drawn TTFT plot %v, a file not drawn %v",
			len(sweep), strings.Contains(page, embedded(drawn)), strings.Contains(page, embedded(other)))
	}
	for _, path := range sweep {
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(page, embedded(b)) {
			t.Errorf("%s is not embedded as written (%v)", path, err)
		}
	}

	r.Drawn = nil // every point resumed: drawn by the run that measured it
	if page := writeHTML(t, r); !strings.Contains(page, embedded(other)) {
		t.Error("a point drawn by an earlier run: its files are not read")
	}
	if err := os.WriteFile(filepath.Join(first, plots.FileLatency), []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(SweepPlots{}); err == nil {
		t.Error("a plot file that is not a PNG is embedded")
	}
}

// writeHTML writes r's report.html with its sweep plots and returns it.
func writeHTML(t *testing.T, r *RunReport) string {
	t.Helper()
	if err := r.WriteHTML(r.WriteSweeps(io.Discard, io.Discard)); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(r.Dir, htmlFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// tinyPNG is a valid PNG no plot draws.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

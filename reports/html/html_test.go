package html

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// writeFixtureReport renders the sweep fixture with real plots into dir
// and returns the page.
func writeFixtureReport(t *testing.T, dir string) []byte {
	t.Helper()
	points := filepath.Join(dir, "points")
	results, verdicts := sweepFixture(t, points)
	sweeps := map[string][]plots.Image{}
	for i := range results {
		imgs, err := plots.RenderSweepPlots(&results[i])
		if err != nil {
			t.Fatal(err)
		}
		sweeps[results[i].Experiment.Name] = imgs
	}
	groups := must(PlotGroups(results, sweeps, filesIn(t, points, plots.PointFiles)))
	rep := Report{Title: "llmbench · chat-mix", Scenario: "scenarios/chat.star", Results: results,
		Verdicts: verdicts, Plots: groups, Config: []KV{{"llmbench", "v0.0.0-test"}, {"output", dir}}}
	var b bytes.Buffer
	if err := writePage(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteIsSelfContained(t *testing.T) {
	page := string(writeFixtureReport(t, t.TempDir()))
	for _, bad := range []string{`src="http`, `href="http`, `<link`, `@import`, `url(http`, `src="//`, `<script`} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	imgs := regexp.MustCompile(`<img [^>]*src="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(imgs) < 5 {
		t.Fatalf("%d images, want the sweep and point plots", len(imgs))
	}
	for _, m := range imgs {
		if !strings.HasPrefix(m[1], "data:image/png;base64,") {
			t.Errorf("image source %.60q is not a PNG data: URI", m[1])
		}
	}
}

func TestWriteShowsEverySection(t *testing.T) {
	page := string(writeFixtureReport(t, t.TempDir()))
	want := []string{
		"scenarios/chat.star", "v0.0.0-test", // configuration
		"ttft.p99 &lt; 300ms", "✓", "✗", // gate verdicts
		"Sweep", "concurrency16", "Saturation", // sweep table with its words
		"Dataset components · concurrency4", ">long<", ">chat<", // per-component breakdown
		">http<", ">503<", ">timeout<", "idle timeout 30s", // errors by class
		"TTFT p99 (ms)", "goodput (req/s)",
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, `<script>alert`) {
		t.Error("a server error message was not escaped")
	}
}

// Plots rendered in memory are embedded byte for byte, the sweep's
// before the points', without drawing anything again; bytes that are not
// a PNG are refused.
func TestWriteEmbedsRenderedImages(t *testing.T) {
	dir := t.TempDir()
	results, _ := sweepFixture(t, dir)
	imgs, err := plots.RenderSweepPlots(&results[0])
	if err != nil || len(imgs) == 0 {
		t.Fatalf("rendered %d sweep plots: %v", len(imgs), err)
	}
	groups := must(PlotGroups(results, map[string][]plots.Image{"chat-mix": imgs}, filesIn(t, dir, plots.PointFiles)))
	if len(groups) != 4 || groups[0].Title != "chat-mix · sweep" || len(groups[0].Images) != len(imgs) || len(groups[1].Images) != 5 {
		t.Fatalf("groups %+v: want the sweep's images, then three points' five plots", groups)
	}
	var b bytes.Buffer
	if err := writePage(&b, Report{Results: results, Plots: groups}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, img := range imgs {
		// html/template writes an attribute's "+" as "&#43;".
		if !strings.Contains(page, strings.ReplaceAll(base64.StdEncoding.EncodeToString(img.PNG), "+", "&#43;")) {
			t.Errorf("%s is not embedded as rendered", img.Name)
		}
	}
	if i, j := strings.Index(page, "chat-mix-throughput_vs_p99_ttft"), strings.Index(page, "time_to_first_token"); i < 0 || j < i {
		t.Errorf("sweep plot at %d, first point plot at %d: want the sweep first", i, j)
	}
	bad := Report{Plots: []PlotGroup{{Title: "p", Images: []plots.Image{{Name: "x.png", PNG: []byte("not a png")}}}}}
	if err := writePage(&bytes.Buffer{}, bad); err == nil {
		t.Error("bytes that are not a PNG were embedded")
	}
}

func TestWriteEmptyReport(t *testing.T) {
	var b bytes.Buffer
	if err := writePage(&b, Report{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No gates were set.") {
		t.Error("an empty report does not say there were no gates")
	}
}

// A point run three times gets a repeats table with mean, CI and spread,
// and metrics whose repeats differ by more than 10% are flagged.
func TestRepeatsTable(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	pt := &results[0].Points[0]
	var runs []*metrics.Summary
	for _, f := range []float64{1, 1.02, 1.5} { // the third run is 50% slower
		s := pt.Outcome.Summary
		s.TimeToFirstToken = s.TimeToFirstToken.Scaled(f)
		runs = append(runs, &s)
		pt.Repeats = append(pt.Repeats, &runtime.Outcome{Summary: s})
	}
	pt.RepeatStats = metrics.HeadlineRepeats(runs)
	var b bytes.Buffer
	if err := writePage(&b, Report{Results: results}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i := strings.Index(page, "Repeats · concurrency1 (3 runs)")
	if i < 0 {
		t.Fatal("no repeats table for the repeated point")
	}
	table := page[i:]
	table = table[:strings.Index(table, "</table>")]
	for _, want := range []string{"ttft.p99", "95% CI", "✗ repeats disagree", "output_token_throughput"} {
		if !strings.Contains(table, want) {
			t.Errorf("repeats table lacks %q:\n%s", want, table)
		}
	}
	if strings.Count(table, "✗ repeats disagree") != 2 { // ttft.p50 and ttft.p99
		t.Errorf("want exactly the two TTFT rows flagged:\n%s", table)
	}
}

// The sweep is an HTML table, one cell per value, with the knee and
// saturation lines under it; no preformatted console text.
func TestSweepIsATable(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	results[0].Points[2].Outcome.Interrupted = true
	var b bytes.Buffer
	if err := writePage(&b, Report{Results: results}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<pre") {
		t.Error("page still has preformatted text")
	}
	i := strings.Index(page, `<table class="sweep">`)
	if i < 0 {
		t.Fatal("no sweep table")
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	for _, want := range []string{`<th>concurrency</th><th>TTFT p99 (ms)</th>`,
		`<tr class="partial"><td>16 (partial)</td>`, `<td>2 (3.23%)</td>`, `<td class="pass">✓</td>`} {
		if !strings.Contains(table, want) {
			t.Errorf("sweep table lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(page, "<li><strong>Knee (ttft.p99 &lt; 300ms):</strong> concurrency") ||
		!strings.Contains(page, "<li><strong>Saturation:</strong> at concurrency 4") {
		t.Errorf("knee and saturation are not listed under the table:\n%s", page[i:i+len(table)+800])
	}
}

// Every row of the sweep table is cut into as many cells as it has
// columns, spaces inside a cell ("2 (3.23%)", "± 2.1 !") kept together.
func TestSweepViewCells(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	pt := &results[0].Points[1]
	pt.RepeatStats = map[string]metrics.RepeatStat{
		"output_token_throughput": metrics.AcrossRepeats([]float64{100, 150, 200}),
	}
	v := newSweepView(&results[0])
	if len(v.Header) != 8 || len(v.Rows) != 3 {
		t.Fatalf("header %q and %d rows, want 8 columns and 3 points", v.Header, len(v.Rows))
	}
	for _, r := range v.Rows {
		if len(r.Cells) != len(v.Header) || r.Cells[0].Text == "" {
			t.Errorf("row %+v does not fill the %d columns", r.Cells, len(v.Header))
		}
	}
	if got := v.Rows[1].Cells[3].Text; !strings.Contains(got, " ± ") || !strings.HasSuffix(got, " !") {
		t.Errorf("repeated throughput cell %q, want mean ± half-width flagged !", got)
	}
}

func TestCheckLine(t *testing.T) {
	for c, want := range map[verdict.CheckState]string{
		verdict.CheckNotDefined: `<p class="muted">check(): not defined</p>`,
		verdict.CheckPassed:     `<p class="pass">check(): passed</p>`,
		verdict.CheckFailed:     `<p class="fail">check(): failed</p>`,
	} {
		var b bytes.Buffer
		if err := writePage(&b, Report{Check: c}); err != nil {
			t.Fatal(err)
		}
		gates := b.String()[strings.Index(b.String(), `id="gates"`):]
		if !strings.Contains(gates, want) {
			t.Errorf("check %s: gates section lacks %q", c, want)
		}
	}
	var b bytes.Buffer
	if err := writePage(&b, Report{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "check()") {
		t.Error("a check() line without the caller saying")
	}
}

func TestPartialBanner(t *testing.T) {
	for _, partial := range []bool{false, true} {
		var b bytes.Buffer
		if err := writePage(&b, Report{Partial: partial}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), `<div class="banner" role="alert"><strong>Partial results`); got != partial {
			t.Errorf("Partial %v: banner shown %v", partial, got)
		}
	}
}

// Plots fill the content column, one under the other, scaling down with
// the window: no fixed pixel width.
func TestPlotsFillTheColumn(t *testing.T) {
	if !strings.Contains(pageCSS, "figure img{display:block;width:100%;max-width:100%;height:auto") {
		t.Error("plot images do not fill the column")
	}
	if regexp.MustCompile(`img\{[^}]*max-width:\d+px`).MatchString(pageCSS) {
		t.Error("plot images are capped at a pixel width")
	}
}

// A point the client limited is called out under the points table, with
// its reason; a page without one says nothing of the client.
func TestWriteShowsClientLimitedPoints(t *testing.T) {
	results, _ := sweepFixture(t, filepath.Join(t.TempDir(), "points"))
	var plain bytes.Buffer
	if err := writePage(&plain, Report{Results: results}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Limited by the client") {
		t.Error("a page with no client-limited point calls one out")
	}
	pt := &results[0].Points[0]
	pt.Outcome.Summary.Client = &metrics.ClientVerdict{Limited: true, Reasons: []string{"the client used 97% of its 2 cores"}}
	var b bytes.Buffer
	if err := writePage(&b, Report{Results: results}); err != nil {
		t.Fatal(err)
	}
	if want := pt.Params.Label() + ": the client used 97% of its 2 cores"; !strings.Contains(b.String(), "Limited by the client, not the server") ||
		!strings.Contains(b.String(), want) {
		t.Errorf("page lacks the client-limited point %q", want)
	}
}

// The repeats table names catalogue metrics in their catalogue units:
// ms for times, % for error_rate, requests/s for request throughput and
// goodput (it said req/s, guessed from the names).
func TestRepeatRowsNameCatalogueMetrics(t *testing.T) {
	s := metrics.Summary{TimeToFirstToken: metrics.NewDistribution([]float64{1e6, 2e6}),
		InterTokenLatency: metrics.NewDistribution([]float64{1e6}), RequestLatency: metrics.NewDistribution([]float64{3e6}),
		RequestThroughput: 2, OutputTokenThroughput: 20, Completed: 2}
	goodput := 1.5
	s.RequestGoodput = &goodput
	pt := &runtime.PointResult{Params: plan.Params{"concurrency": 1},
		RepeatStats: metrics.HeadlineRepeats([]*metrics.Summary{&s, &s}), Repeats: make([]*runtime.Outcome, 2)}
	rows := newRepeatView(pt).Rows
	if len(rows) != len(metrics.HeadlineNames()) {
		t.Fatalf("%d rows, want one per headline metric", len(rows))
	}
	for _, r := range rows {
		base, _, _ := strings.Cut(r.Metric, ".")
		m, ok := metrics.Lookup(base)
		if !ok || r.Unit != m.Unit {
			t.Errorf("row %s in %q: catalogue metric %v", r.Metric, r.Unit, m)
		}
	}
}

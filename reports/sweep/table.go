package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/runtime"
)

// tableHeader names the columns; the first is the load parameter, the
// second the first token's p99 (the latency's without streaming, see
// TableOf).
var tableHeader = []string{"", p99Title("TTFT", metrics.TTFT), p99Title("ITL", metrics.ITL), "output tok/s", "req/s",
	"goodput (req/s)", "errors", "gates"}

// p99Title heads a column of a metric's p99 in its report unit.
func p99Title(what string, m *metrics.Metric) string { return what + " p99 (" + m.Unit + ")" }

// Table is the sweep as a table, typed so each page lays it out itself:
// the console aligns its text (Console), report.html colours its gate
// marks and bolds its notes' labels, and neither reads the other's
// strings.
type Table struct {
	// Header names the columns; the first is the load parameter.
	Header []string
	// Rows are the points in run order.
	Rows []Row
	// Notes are the lines under the table: disagreeing repeats, a prefix
	// cache shift, then the knee, max goodput, saturation and search in
	// words.
	Notes []Note
}

// Row is one point of the sweep: its cells as printed, the gate column
// last, its gate mark as a value and whether it was cut short.
type Row struct {
	Cells []string
	Gates GateMark
	// Partial marks a point cut short by an interrupt: shown, left out of
	// the analyses.
	Partial bool
}

// GateMark is what a point's gates came to in the sweep table.
type GateMark int

const (
	// GatesNone: no gate applied at the point.
	GatesNone GateMark = iota
	// GatesPassed: every gate evaluated at the point passed.
	GatesPassed
	// GatesFailed: a gate failed or could not be measured.
	GatesFailed
)

// String is the mark as the table prints it.
func (m GateMark) String() string { return [...]string{"–", "✓", "✗"}[m] }

// Note is one line under the table: what it is about (Label: "Knee
// (ttft.p99 < 300ms)", "Saturation"; "" for none) and what it says.
type Note struct {
	Label, Text string
}

// String is the note as the console prints it.
func (n Note) String() string {
	if n.Label == "" {
		return n.Text
	}
	return n.Label + ": " + n.Text
}

// Console prints the sweep table: one row per point in run order with
// its load (param's value), p99 TTFT and ITL, output token and request
// throughput, goodput, errors and whether every gate evaluated there
// passed, right-aligned; then the notes. With repeats, throughput and
// TTFT read mean ± the 95% confidence half-width, and points whose
// repeats disagree by more than 10% are flagged with "!". A point cut
// short by an interrupt is marked partial and left out of the analyses.
func Console(res *runtime.ExperimentResult) reports.Reporter {
	t := TableOf(res)
	return func(w io.Writer) error {
		rows := [][]string{t.Header}
		for _, r := range t.Rows {
			rows = append(rows, r.Cells)
		}
		var b strings.Builder
		writeAligned(&b, rows)
		for _, n := range t.Notes {
			b.WriteString(n.String() + "\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
}

// TableOf is the sweep table of res.
func TableOf(res *runtime.ExperimentResult) Table {
	c := res.Analysis()
	t := Table{Header: append([]string{c.Param}, tableHeader[1:]...)}
	streamed := res.Experiment == nil || res.Experiment.Endpoint.Stream
	if !streamed {
		t.Header[1] = p99Title("latency", metrics.RequestLatency) // without streaming the first token arrives with the last
	}
	for i := range res.Points {
		t.Rows = append(t.Rows, tableRow(&res.Points[i], c.Param, streamed))
	}
	t.Notes = disagreements(res, c.Param)
	if words := cacheShiftWords(res, c.Param); words != "" {
		t.Notes = append(t.Notes, Note{cacheShiftLabel, words})
	}
	if s := shardOf(res); s != nil {
		// One shard measured a share of each point: its knee or
		// saturation would be the capacity of a fraction of the load.
		t.Notes = append(t.Notes, Note{"Capacity (knee, max goodput, saturation)", fmt.Sprintf(
			"not judged on shard %d/%d, which ran a share of the load; llmbench merge judges it over every shard", s.Index, s.Count)})
	} else {
		t.Notes = append(t.Notes, analysisNotes(res, c)...)
	}
	return t
}

// shardOf is the shard that measured the result's points, nil when one
// process measured them all (a run, or a merge of shards).
func shardOf(res *runtime.ExperimentResult) *runtime.ShardRun {
	for i := range res.Points {
		if o := res.Points[i].Outcome; o != nil && o.Shard != nil && o.Shard.Count > 1 {
			return o.Shard
		}
	}
	return nil
}

// tableRow renders one point.
func tableRow(p *runtime.PointResult, param string, streamed bool) Row {
	load := p.Params.Label()
	if v, ok := p.Params[param]; ok {
		load = plain(v)
	}
	row := Row{Partial: partial(p), Gates: gateMark(p.Gates)}
	if row.Partial {
		load += " (partial)"
	}
	if p.Outcome == nil {
		row.Cells = []string{load, "–", "–", "–", "–", "–", "–", row.Gates.String()}
		return row
	}
	s := &p.Outcome.Summary
	first := withSpread(p, "ttft.p99", p99(metrics.TTFT, s), 2)
	if !streamed {
		first = fixed(p99(metrics.RequestLatency, s), 2)
	}
	errorRate, _ := metrics.ErrorRate.Value(s)
	row.Cells = []string{
		load,
		first,
		fixed(p99(metrics.ITL, s), 2),
		withSpread(p, metrics.OutputTokenThroughput.Name, value(metrics.OutputTokenThroughput, s), 1),
		fixed(value(metrics.RequestThroughput, s), 2),
		fixed(value(metrics.RequestGoodput, s), 2),
		fmt.Sprintf("%d (%.2f%%)", s.Failed, metrics.ErrorRate.Display(errorRate)),
		row.Gates.String(),
	}
	return row
}

// p99 is a distribution metric's p99 in report units, NaN when the run
// did not measure it.
func p99(m *metrics.Metric, s *metrics.Summary) float64 {
	d := m.Distribution(s)
	if d == nil {
		return math.NaN()
	}
	return d.P99 * m.Scale()
}

// value is a run-level metric in report units, NaN when the run did not
// measure it (no goodput SLOs).
func value(m *metrics.Metric, s *metrics.Summary) float64 {
	v, ok := m.Value(s)
	if !ok {
		return math.NaN()
	}
	return v * m.Scale()
}

// withSpread shows a headline metric as mean ± the 95% CI half-width, in
// report units, when the point was repeated, flagged "!" when its repeats
// disagree; else the value.
func withSpread(p *runtime.PointResult, name string, value float64, decimals int) string {
	st, ok := p.RepeatStats[name]
	if !ok || st.N < 2 || math.IsNaN(st.CIHigh) {
		return fixed(value, decimals)
	}
	scale := metrics.HeadlineMetric(name).Scale()
	s := fixed(st.Mean*scale, decimals) + " ± " + fixed((st.CIHigh-st.CILow)/2*scale, decimals)
	if st.Disagree {
		s += " !"
	}
	return s
}

// gateMark is what the gates evaluated at a point came to.
func gateMark(gates []runtime.GateResult) GateMark {
	if len(gates) == 0 {
		return GatesNone
	}
	for _, g := range gates {
		if !g.Passed {
			return GatesFailed
		}
	}
	return GatesPassed
}

// writeAligned right-aligns every column, two spaces apart, counting runes
// so ✓, ± and – do not skew the columns.
func writeAligned(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, cell := range r {
			widths[j] = max(widths[j], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range rows {
		line := make([]string, len(r))
		for j, cell := range r {
			line[j] = strings.Repeat(" ", widths[j]-utf8.RuneCountInString(cell)) + cell
		}
		b.WriteString(strings.TrimRight(strings.Join(line, "  "), " ") + "\n")
	}
}

// disagreements name, under the table, each point whose repeats
// disagree and on which metrics, so a "!" is never left unexplained.
func disagreements(res *runtime.ExperimentResult, param string) []Note {
	var notes []Note
	for i := range res.Points {
		p := &res.Points[i]
		var which []string
		for _, name := range metrics.HeadlineNames() {
			if st, ok := p.RepeatStats[name]; ok && st.Disagree {
				which = append(which, fmt.Sprintf("%s %.1f%%", name, 100*st.Spread))
			}
		}
		if len(which) > 0 {
			notes = append(notes, Note{"! " + pointName(p, param), fmt.Sprintf(
				"its %d repeats differ by more than %.0f%% (%s); treat it as a data point, not a number",
				len(p.Repeats), 100*metrics.DisagreeSpread, strings.Join(which, ", "))})
		}
	}
	return notes
}

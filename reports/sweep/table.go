package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// tableHeader names the columns; the first is the load parameter.
var tableHeader = []string{"", "TTFT p99 (ms)", "ITL p99 (ms)", "output tok/s", "req/s", "goodput (req/s)", "errors", "gates"}

// WriteTable prints the sweep table: one row per point in run order with
// its load (param's value), p99 TTFT and ITL, output token and request
// throughput, goodput, errors and whether every gate evaluated there
// passed; then the knee, the max-goodput point and the saturation point in
// words. With repeats, throughput and TTFT read mean ± the 95% confidence
// half-width, and points whose repeats disagree by more than 10% are
// flagged with "!". A point cut short by an interrupt is marked partial
// and left out of the analyses.
func WriteTable(w io.Writer, res *runtime.ExperimentResult) error {
	t := TableOf(res)
	var b strings.Builder
	writeAligned(&b, append([][]string{t.Header}, t.Rows...))
	for _, n := range t.Notes {
		b.WriteString(n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table is the sweep table as cells, for a page that lays it out itself:
// the header, a row per point in run order (Partial marking points cut
// short), and the lines under it.
type Table struct {
	Header  []string
	Rows    [][]string
	Partial []bool
	// Notes are the lines under the table: disagreeing repeats, then the
	// knee, max goodput, saturation and search in words.
	Notes []string
}

// TableOf is WriteTable's table, unaligned.
func TableOf(res *runtime.ExperimentResult) Table {
	c := res.Analysis()
	t := Table{Header: append([]string{c.Param}, tableHeader[1:]...)}
	streamed := res.Experiment == nil || res.Experiment.Endpoint.Stream
	if !streamed {
		t.Header[1] = "latency p99 (ms)" // without streaming the first token arrives with the last
	}
	for i := range res.Points {
		t.Rows = append(t.Rows, tableRow(&res.Points[i], c.Param, streamed))
		t.Partial = append(t.Partial, partial(&res.Points[i]))
	}
	var b strings.Builder
	writeDisagreements(&b, res, c.Param)
	if w := CacheShiftWarning(res, c.Param); w != "" {
		b.WriteString(w + "\n")
	}
	if s := shardOf(res); s != nil {
		// One shard measured a share of each point: its knee or
		// saturation would be the capacity of a fraction of the load.
		fmt.Fprintf(&b, "Capacity (knee, max goodput, saturation): not judged on shard %d/%d, which ran a share of the load; llmbench merge judges it over every shard\n", s.Index, s.Count)
	} else {
		writeAnalysis(&b, res, c)
	}
	t.Notes = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
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
func tableRow(p *runtime.PointResult, param string, streamed bool) []string {
	load := p.Params.Label()
	if v, ok := p.Params[param]; ok {
		load = plain(v)
	}
	if partial(p) {
		load += " (partial)"
	}
	if p.Outcome == nil {
		return []string{load, "–", "–", "–", "–", "–", "–", "–"}
	}
	s := &p.Outcome.Summary
	first := withSpread(p, "ttft.p99", ms(p99(s.TimeToFirstToken)), 2)
	if !streamed {
		first = fixed(ms(p99(s.RequestLatency)), 2)
	}
	return []string{
		load,
		first,
		fixed(ms(p99(s.InterTokenLatency)), 2),
		withSpread(p, "output_token_throughput", s.OutputTokenThroughput, 1),
		fixed(s.RequestThroughput, 2),
		goodput(s),
		fmt.Sprintf("%d (%.2f%%)", s.Failed, 100*s.ErrorRate),
		gateMark(p.Gates),
	}
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

func goodput(s *metrics.Summary) string {
	if s.RequestGoodput == nil {
		return "–"
	}
	return fixed(*s.RequestGoodput, 2)
}

// gateMark is ✓ when every gate evaluated at the point passed, ✗ when one
// failed or could not be measured, – when none applied there.
func gateMark(gates []runtime.GateResult) string {
	if len(gates) == 0 {
		return "–"
	}
	for _, g := range gates {
		if !g.Passed {
			return "✗"
		}
	}
	return "✓"
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

// writeDisagreements names, under the table, each point whose repeats
// disagree and on which metrics, so a "!" is never left unexplained.
func writeDisagreements(b *strings.Builder, res *runtime.ExperimentResult, param string) {
	for i := range res.Points {
		p := &res.Points[i]
		var which []string
		for _, name := range metrics.HeadlineNames() {
			if st, ok := p.RepeatStats[name]; ok && st.Disagree {
				which = append(which, fmt.Sprintf("%s %.1f%%", name, 100*st.Spread))
			}
		}
		if len(which) > 0 {
			fmt.Fprintf(b, "! %s: its %d repeats differ by more than %.0f%% (%s); treat it as a data point, not a number\n",
				pointName(p, param), len(p.Repeats), 100*metrics.DisagreeSpread, strings.Join(which, ", "))
		}
	}
}

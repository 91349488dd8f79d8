package genaiperf

import (
	"bufio"
	"io"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// csvStats is the column order of the CSV's per-request table.
var csvStats = []string{"avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"}

// notAvailable is what GenAI-Perf prints for a metric it has no value for.
const notAvailable = "N/A"

// WriteCSV writes profile_export_genai_perf.csv as GenAI-Perf's csv
// exporter does (Python csv.writer: CRLF, minimal quoting; numbers
// f"{v:,.2f}", so values of 1,000 and more are quoted): the per-request
// table, a blank row, then the "Metric,Value" table.
//
// llmbench additions, after GenAI-Perf's rows of each table:
//   - "Time To First Output Token (ms)" closes the per-request table when a
//     reasoning model was measured in a streaming run.
//   - "Error Count (count)" and "Error Rate (%)" close the Metric,Value
//     table. The rate is a percentage here (the JSON's ratio × 100)
//     because two decimals of a ratio would hide a 0.4% error rate.
func WriteCSV(w io.Writer, r *Run, s *metrics.Summary) error {
	cw := pyCSV{w: bufio.NewWriter(w)}
	cw.row(append([]string{"Metric"}, csvStats...)...)
	rows := tableMetrics(r)
	if r.isLLM() && r.Streaming && s.TimeToFirstOutputToken != nil {
		rows = append(rows, mTTFO)
	}
	for _, m := range rows {
		cw.row(append([]string{m.label()}, statCells(m.dist(s), csvStats)...)...)
	}
	cw.row()
	cw.row("Metric", "Value")
	for _, m := range systemMetrics(r, s) {
		cw.row(m.label(), valueCell(m.value))
	}
	cw.row("Error Count (count)", pyComma2(float64(s.Failed)))
	cw.row("Error Rate (%)", pyComma2(s.ErrorRate*100))
	if r.aggregate != nil && r.aggregate.Telemetry != nil {
		writeAggregatedTelemetryCSV(&cw, r.aggregate.Telemetry)
	} else {
		writeTelemetryCSV(&cw, r.Telemetry)
	}
	return cw.flush()
}

// statCells formats the named statistics of d, N/A for all when the
// metric was not measured (GenAI-Perf's fetch_stat).
func statCells(d *metrics.Distribution, names []string) []string {
	cells := make([]string, len(names))
	for i, name := range names {
		if d == nil {
			cells[i] = notAvailable
		} else {
			cells[i] = pyComma2(stat(d, name))
		}
	}
	return cells
}

func valueCell(v *float64) string {
	if v == nil {
		return notAvailable
	}
	return pyComma2(*v)
}

// pyCSV writes rows as Python's csv.writer with the default dialect: ","
// separators, "\r\n" after every row, and a field quoted (with doubled
// quotes inside) only when it holds a comma, a quote or a line break — or
// is the only, empty field of its row. encoding/csv differs (it also
// quotes a leading space), hence this small writer.
type pyCSV struct {
	w   *bufio.Writer
	err error
}

func (c *pyCSV) row(fields ...string) {
	for i, f := range fields {
		if i > 0 {
			c.write(",")
		}
		if strings.ContainsAny(f, ",\"\r\n") || (f == "" && len(fields) == 1) {
			f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
		c.write(f)
	}
	c.write("\r\n")
}

func (c *pyCSV) write(s string) {
	if c.err == nil {
		_, c.err = c.w.WriteString(s)
	}
}

func (c *pyCSV) flush() error {
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}

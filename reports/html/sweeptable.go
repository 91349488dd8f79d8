package html

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/runtime"
)

// sweepView is the console's sweep table as an HTML table, with the lines
// printed under it (disagreeing repeats, knee, max goodput, saturation,
// search) as notes.
type sweepView struct {
	Header []string
	Rows   []sweepRow
	Notes  []sweepNote
}

type sweepRow struct {
	Cells []sweepCell
	// Partial marks a point cut short by an interrupt.
	Partial bool
}

type sweepCell struct {
	Text, Class string
}

// sweepNote is one line under the table, its label ("Knee (ttft.p99 <
// 300ms)") apart from what it says.
type sweepNote struct {
	Label, Text string
}

// newSweepView renders the sweep table with sweep.WriteTable and cuts its
// text into cells, so the page says exactly what the console says about
// every point, the knee and the saturation, in a table a browser lays out.
func newSweepView(res *runtime.ExperimentResult, knee *metrics.Gate) (*sweepView, error) {
	var b bytes.Buffer
	var opts []sweep.Option
	if knee != nil {
		opts = append(opts, sweep.KneeGate(*knee))
	}
	if err := sweep.WriteTable(&b, res, sweep.LoadParam(res), opts...); err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	n := 1 + len(res.Points) // the header, then a line per point
	if len(lines) < n {
		return nil, fmt.Errorf("sweep table has %d lines, want at least %d", len(lines), n)
	}
	ends := columnEnds(lines[0])
	v := &sweepView{Header: cutColumns(lines[0], ends)}
	for _, line := range lines[1:n] {
		v.Rows = append(v.Rows, newSweepRow(cutColumns(line, ends)))
	}
	for _, line := range lines[n:] {
		v.Notes = append(v.Notes, newSweepNote(line))
	}
	return v, nil
}

// headerCell is a header cell: words one space apart. Columns are two or
// more spaces apart.
var headerCell = regexp.MustCompile(`\S+( \S+)*`)

// columnEnds is where each column ends, in runes: the table's columns are
// right-aligned, so a column ends where its header does on every line,
// and a cell may hold spaces ("0 (0.00%)", "16 (partial)") without
// confusing the cut.
func columnEnds(header string) []int {
	var ends []int
	for _, m := range headerCell.FindAllStringIndex(header, -1) {
		ends = append(ends, len([]rune(header[:m[1]])))
	}
	return ends
}

// cutColumns splits a line at the column ends.
func cutColumns(line string, ends []int) []string {
	r := []rune(line)
	cells := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		end = min(end, len(r))
		cells[i] = strings.TrimSpace(string(r[min(start, end):end]))
		start = end
	}
	return cells
}

// newSweepRow styles a row: a gate mark in its pass or fail colour. Every
// cell is right-aligned, the load too: it is a number, as on the console.
func newSweepRow(cells []string) sweepRow {
	row := sweepRow{Partial: len(cells) > 0 && strings.HasSuffix(cells[0], "(partial)")}
	for _, c := range cells {
		cell := sweepCell{Text: c}
		switch c {
		case "✓":
			cell.Class = "pass"
		case "✗":
			cell.Class = "fail"
		}
		row.Cells = append(row.Cells, cell)
	}
	return row
}

// newSweepNote splits a line under the table at its first ": ".
func newSweepNote(line string) sweepNote {
	label, text, ok := strings.Cut(line, ": ")
	if !ok {
		return sweepNote{Text: line}
	}
	return sweepNote{Label: label, Text: text}
}

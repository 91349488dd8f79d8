package html

import (
	"strings"

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

// newSweepView lays out sweep.TableOf's cells, so the page says exactly
// what the console says about every point, the knee and the saturation,
// in a table a browser lays out.
func newSweepView(res *runtime.ExperimentResult) *sweepView {
	t := sweep.TableOf(res)
	v := &sweepView{Header: t.Header}
	for i, cells := range t.Rows {
		row := newSweepRow(cells)
		row.Partial = t.Partial[i]
		v.Rows = append(v.Rows, row)
	}
	for _, line := range t.Notes {
		v.Notes = append(v.Notes, newSweepNote(line))
	}
	return v
}

// newSweepRow styles a row: a gate mark in its pass or fail colour. Every
// cell is right-aligned, the load too: it is a number, as on the console.
func newSweepRow(cells []string) sweepRow {
	var row sweepRow
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

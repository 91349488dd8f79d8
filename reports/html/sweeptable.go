package html

import (
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/runtime"
)

// sweepView is the sweep table (sweep.TableOf, the console's) as an HTML
// table, with the notes under it as a list.
type sweepView struct {
	Header []string
	Rows   []sweepRow
	Notes  []sweep.Note
}

type sweepRow struct {
	Cells []sweepCell
	// Partial marks a point cut short by an interrupt.
	Partial bool
}

type sweepCell struct {
	Text, Class string
}

// gateClass colours a sweep row's gate mark; no gate is left plain.
var gateClass = map[sweep.GateMark]string{sweep.GatesPassed: "pass", sweep.GatesFailed: "fail"}

// newSweepView lays out sweep.TableOf, so the page says exactly what the
// console says about every point, the knee and the saturation, in a
// table a browser lays out. Every cell is right-aligned, the load too: it
// is a number, as on the console; the gate column, last, is coloured by
// the row's mark.
func newSweepView(res *runtime.ExperimentResult) *sweepView {
	t := sweep.TableOf(res)
	v := &sweepView{Header: t.Header, Notes: t.Notes}
	for _, r := range t.Rows {
		row := sweepRow{Partial: r.Partial}
		for _, c := range r.Cells {
			row.Cells = append(row.Cells, sweepCell{Text: c})
		}
		row.Cells[len(row.Cells)-1].Class = gateClass[r.Gates]
		v.Rows = append(v.Rows, row)
	}
	return v
}

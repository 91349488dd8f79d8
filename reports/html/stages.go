package html

import (
	"strconv"

	"github.com/llmbench/llmbench/runtime"
)

// newStageView summarizes each stage of a stages() point on its own (the
// requests sent during it), labelled with its target, so a ramp's numbers
// are not read as the hold's. It reports false for any other load.
func newStageView(pt *runtime.PointResult) (componentView, bool) {
	if len(pt.Outcome.Stages) == 0 {
		return componentView{}, false
	}
	sv := componentView{Point: pt.Params.Label()}
	for _, st := range pt.Outcome.Stages {
		label := st.Label + " (→ " + strconv.FormatFloat(st.Target, 'g', -1, 64) + ")"
		sv.Rows = append(sv.Rows, newMetricRow(label, &st.Summary))
	}
	return sv, true
}

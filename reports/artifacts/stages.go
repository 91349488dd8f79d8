package artifacts

import (
	"fmt"
	"io"
	"strconv"

	"github.com/llmbench/llmbench/runtime"
)

// writeStages prints headline metrics per stage of a stages() load, each
// from the requests sent during it, so a ramp's or a ramp-down's numbers
// do not blur the hold's. The target is the stage's own (where it ends);
// the table above has the whole point's, against its peak.
func writeStages(w io.Writer, stages []runtime.StageSummary) {
	if len(stages) == 0 {
		return
	}
	fmt.Fprintf(w, "Per stage:     %-3s %-12s %8s %8s %7s %10s %10s %10s %10s %8s %12s\n",
		"#", "stage", "target", "requests", "errors", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "req/s", "output tok/s")
	for _, st := range stages {
		s := &st.Summary
		fmt.Fprintf(w, "               %-3d %-12s %8s %8d %7d %10s %10s %10s %10s %8.2f %12.1f\n", st.Index, st.Label,
			strconv.FormatFloat(st.Target, 'g', -1, 64), s.Completed, s.Failed,
			msText(s.TimeToFirstToken, 50), msText(s.TimeToFirstToken, 99),
			msText(s.InterTokenLatency, 50), msText(s.InterTokenLatency, 99), s.RequestThroughput, s.OutputTokenThroughput)
	}
}

package sweep

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// stageJSON is one stage's requests and metrics, reduced from the
// requests sent during it with the point's definitions; a gate selects it
// by Name when it has one, else by Index.
type stageJSON struct {
	Index    int          `json:"index"`
	Name     string       `json:"name,omitempty"`
	Label    string       `json:"label"`
	Target   float64      `json:"target"`
	Requests requestsJSON `json:"requests"`
	Metrics  *metricsJSON `json:"metrics"`
}

func stagesOf(stages []runtime.StageSummary) []stageJSON {
	var out []stageJSON
	for _, st := range stages {
		s := &st.Summary
		out = append(out, stageJSON{Index: st.Index, Name: st.Name, Label: st.Label, Target: st.Target, Metrics: metricsOf(s),
			Requests: requestsJSON{Completed: s.Completed, Failed: s.Failed, ErrorRate: s.ErrorRate * metrics.ErrorRate.Scale(), Retried: s.Retried}})
	}
	return out
}

package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/storedrun"
)

// exportNames are the names a point's GenAI-Perf JSON and CSV are
// rewritten under: their own, except for a recovered point when the
// folder already holds a valid GenAI-Perf JSON that counts more requests
// than the recovery gives (a finished run whose records file was damaged
// later) — then the recovered figures go beside it, under the recovered
// export's names, and the finished run's files stay.
func exportNames(stderr io.Writer, dir, exportFile string, recovered bool, s *metrics.Summary) (jsonName, csvName string) {
	jsonName, csvName = genaiperf.ExportFileNames(exportFile)
	if !recovered {
		return jsonName, csvName
	}
	had, ok := requestCount(filepath.Join(dir, jsonName))
	if !ok || had <= float64(s.Completed) {
		return jsonName, csvName
	}
	rj, rc := genaiperf.ExportFileNames(storedrun.RecoveredName(exportFile))
	fmt.Fprintf(stderr, "llmbench: %s counts %g requests, more than the %d recovered: it is kept, and the recovered figures are written to %s and %s\n",
		filepath.Join(dir, jsonName), had, s.Completed, rj, rc)
	return rj, rc
}

// requestCount is the request_count of a GenAI-Perf JSON; ok is false
// when there is no such file or it is not valid.
func requestCount(path string) (float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var doc struct {
		RequestCount *struct {
			Avg float64 `json:"avg"`
		} `json:"request_count"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.RequestCount == nil {
		return 0, false
	}
	return doc.RequestCount.Avg, true
}

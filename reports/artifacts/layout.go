package artifacts

import (
	"fmt"
	"path/filepath"

	"github.com/llmbench/llmbench/runtime/plan"
)

// The files a run writes beside its experiments' folders.
const (
	gatesFile   = "gates.json"
	SummaryFile = "summary.json"
	// CompareFile is a run's comparison with its baselines (compare.json).
	CompareFile = "compare.json"
	htmlFile    = "report.html"
	// recordsFile is every point run's records (records.parquet).
	recordsFile = "records.parquet"
	// plotsDir is the folder of a point's plots, in the point's folder.
	plotsDir = "plots"
)

// pointDir is where a scenario point writes: OUT/<experiment>/<label>/.
func pointDir(out, experiment string, p plan.Params) string {
	return filepath.Join(out, experiment, p.Label())
}

// repeatDir is where repeat k (from 1) of a point writes: the point's
// folder for the first (GenAI-Perf's layout), repeat2/, repeat3/... below
// it for the others.
func repeatDir(pointDir string, k int) string {
	if k <= 1 {
		return pointDir
	}
	return filepath.Join(pointDir, fmt.Sprintf("repeat%d", k))
}

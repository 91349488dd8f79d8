package artifacts

import (
	"fmt"
	"path/filepath"

	"github.com/llmbench/llmbench/runtime"
)

// The files a run writes beside its experiments' folders.
const (
	GatesFile   = "gates.json"
	SummaryFile = "summary.json"
	HTMLFile    = "report.html"
)

// PointDir is where a scenario point writes: OUT/<experiment>/<label>/.
func PointDir(out, experiment string, p runtime.Params) string {
	return filepath.Join(out, experiment, p.Label())
}

// RepeatDir is where repeat k (from 1) of a point writes: the point's
// folder for the first (GenAI-Perf's layout), repeat2/, repeat3/... below
// it for the others.
func RepeatDir(pointDir string, k int) string {
	if k <= 1 {
		return pointDir
	}
	return filepath.Join(pointDir, fmt.Sprintf("repeat%d", k))
}

package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/runtime"
)

// describeTelemetry gives a point's GenAI-Perf files its telemetry:
// GenAI-Perf's telemetry_stats and GPU tables, and llmbench's own
// telemetry block. Nothing when nothing was scraped.
func describeTelemetry(r *genaiperf.Run, out *runtime.Outcome) error {
	if out.Telemetry == nil {
		return nil
	}
	r.Telemetry = &out.Telemetry.Summary
	block, err := json.Marshal(telemetry.BlockOf(out.Telemetry, &out.Summary))
	if err != nil {
		return err
	}
	r.TelemetryBlock = block
	return nil
}

// storedTelemetry rebuilds a stored point's telemetry from the
// telemetry.parquet in dir, reduced over the window of the summary
// rebuilt from its records and priced by its saved plan, as the run
// reduced it; nil when the point has no such file.
func storedTelemetry(dir string, out *runtime.Outcome, saved *runtime.PointRecord) (*runtime.PointTelemetry, error) {
	f, err := os.Open(filepath.Join(dir, records.TelemetryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	samples, err := records.ReadTelemetry(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	var cost float64
	if saved != nil {
		cost = saved.Plan.Cost
	}
	return runtime.StoredTelemetry(samples, &out.Summary, cost, ""), nil
}

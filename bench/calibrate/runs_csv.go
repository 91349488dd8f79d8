package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// writeRunsCSV writes one row per run with its headline values, in
// measuring order, so what varies between runs (drift over time, one
// stalled run) can be looked at beside the table.
func writeRunsCSV(path string, st *store) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"index", "round", "side", "repeat", "seed", "started_unix_s", "wall_s", "completed", "failed",
		"ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "request_latency_p99_ms", "output_token_throughput"})
	for i := range st.Runs {
		r := &st.Runs[i]
		s := r.data().Summary
		ms := func(d *metrics.Distribution, p func(*metrics.Distribution) float64) string {
			if d == nil {
				return ""
			}
			return strconv.FormatFloat(p(d)/1e6, 'f', 4, 64)
		}
		p50 := func(d *metrics.Distribution) float64 { return d.P50 }
		p99 := func(d *metrics.Distribution) float64 { return d.P99 }
		_ = w.Write([]string{strconv.Itoa(r.Spec.Index), strconv.Itoa(r.Spec.Round + 1), st.Sides[r.Spec.Side].Name,
			strconv.Itoa(r.Spec.Rep + 1), strconv.FormatInt(r.Seed, 10),
			strconv.FormatFloat(float64(r.Started.UnixNano())/1e9, 'f', 3, 64), strconv.FormatFloat(r.Wall.Seconds(), 'f', 3, 64),
			strconv.Itoa(s.Completed), strconv.Itoa(s.Failed),
			ms(s.TimeToFirstToken, p50), ms(s.TimeToFirstToken, p99), ms(s.InterTokenLatency, p50), ms(s.InterTokenLatency, p99),
			ms(s.RequestLatency, p99), strconv.FormatFloat(s.OutputTokenThroughput, 'f', 2, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

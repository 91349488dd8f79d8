package main

import (
	"encoding/csv"
	"fmt"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// writeRunsCSV writes one row per run with its headline values, in
// measuring order, so what varies between runs (the drift factor, the
// machine's load, one stalled run) can be looked at beside the tables.
func writeRunsCSV(path string, st *store) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"pool", "index", "seed", "drift", "started_unix_s", "wall_s", "load1", "completed", "failed",
		"ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "output_token_throughput"})
	for _, r := range st.All() {
		s := data(r).Summary
		ms := func(d *metrics.Distribution, p func(*metrics.Distribution) float64) string {
			if d == nil {
				return ""
			}
			return strconv.FormatFloat(p(d)/1e6, 'f', 4, 64)
		}
		p50 := func(d *metrics.Distribution) float64 { return d.P50 }
		p99 := func(d *metrics.Distribution) float64 { return d.P99 }
		_ = w.Write([]string{r.Spec.Pool, strconv.Itoa(r.Spec.Index), strconv.FormatInt(r.Spec.Seed, 10),
			strconv.FormatFloat(r.Drift, 'f', 4, 64), strconv.FormatFloat(float64(r.Started.UnixNano())/1e9, 'f', 3, 64),
			strconv.FormatFloat(r.Wall.Seconds(), 'f', 3, 64), strconv.FormatFloat(r.Load1, 'f', 2, 64),
			strconv.Itoa(s.Completed), strconv.Itoa(s.Failed), ms(s.TimeToFirstToken, p99),
			ms(s.InterTokenLatency, p50), ms(s.InterTokenLatency, p99), strconv.FormatFloat(s.OutputTokenThroughput, 'f', 2, 64)})
	}
	w.Flush()
	return writeFile(path, []byte(b.String()))
}

// header says what the tables were measured on, when, where, and by which
// command they were judged.
func header(st *store, c config, judged time.Duration) string {
	runs := st.All()
	if len(runs) == 0 {
		return "No runs.\n"
	}
	var wall time.Duration
	var loads []float64
	for _, r := range runs {
		wall += r.Wall
		loads = append(loads, r.Load1)
	}
	slices.Sort(loads)
	first, last := runs[0], runs[len(runs)-1]
	end := last.Started.Add(last.Wall)
	var b strings.Builder
	fmt.Fprintf(&b, "Runs: %s.\n\n", c.measure.describe())
	fmt.Fprintf(&b, "Measured %s – %s UTC on %s: %d runs, %s of running (%s from the first start to the last end), 1-minute load average %.2f–%.2f (median %.2f) at the runs' starts.\n",
		first.Started.UTC().Format("2006-01-02 15:04"), end.UTC().Format("15:04"), calibrate.Machine(), len(runs),
		wall.Round(time.Second), end.Sub(first.Started).Round(time.Second), loads[0], loads[len(loads)-1], loads[len(loads)/2])
	fmt.Fprintf(&b, "Judged in %s by `go run ./bench/calibrate %s` with the gates %s, judged together at each point.\n",
		judged.Round(time.Second), commandLine(), gateList(c.Tolerance))
	return b.String()
}

// gateList is the family as a scenario would write it.
func gateList(tol float64) string {
	family, err := gateFamily(tol)
	if err != nil {
		return err.Error()
	}
	var names []string
	for _, g := range family {
		names = append(names, "`"+g.Source+"`")
	}
	return strings.Join(names, ", ")
}

// commandLine is this program's arguments as a shell would take them.
func commandLine() string {
	var out []string
	for _, a := range os.Args[1:] {
		if strings.ContainsAny(a, " \t\"'$*%()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

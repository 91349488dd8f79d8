package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// store is every run of a calibration with how it was measured. Saved
// (-save) it lets the same runs be judged again (-load) without another
// half hour of measuring, e.g. at other tolerances.
type store struct {
	Config  config
	Sides   []side
	PerSide int
	// Rounds counts the complete rounds in Runs.
	Rounds  int
	Runs    []storedRun
	Elapsed time.Duration
	Machine string
}

// storedRun is one measured run: its records as `run` writes them.
type storedRun struct {
	Spec    runSpec
	Seed    int64
	Started time.Time
	Wall    time.Duration
	// Records are the measured requests, token-counted, in completion
	// order.
	Records []metrics.Record
}

// data is the run as `compare` reads a stored run (storedrun's
// Summarize and Point.Runs): the summary accumulated over the records in
// completion order, the per-request values in send order.
func (r storedRun) data() metrics.RunData {
	acc := metrics.NewAccumulator(metrics.Options{})
	for i := range r.Records {
		acc.Add(&r.Records[i])
	}
	s := acc.Summary()
	recs := slices.Clone(r.Records)
	slices.SortStableFunc(recs, func(a, b metrics.Record) int {
		return cmp.Or(cmp.Compare(a.Sent, b.Sent), cmp.Compare(a.ID, b.ID))
	})
	return metrics.RunData{Summary: &s, Records: recs}
}

// dropPartialRound forgets the runs of an unfinished round: its pairs
// would be incomplete.
func (st *store) dropPartialRound(p plan) {
	st.Runs = st.Runs[:st.Rounds*p.runsPerRound()]
}

// run is the run of (round, side, rep).
func (st *store) run(round, side, rep int) *storedRun {
	i := (round*len(st.Sides)+side)*st.PerSide + rep
	return &st.Runs[i]
}

func (st *store) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	if err := gob.NewEncoder(zw).Encode(st); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func loadStore(path string) (*store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var st store
	if err := gob.NewDecoder(zr).Decode(&st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &st, nil
}

// machine names the CPU and core count, for the runtime note.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d cores (%s), %s/%s", goruntime.NumCPU(), model, goruntime.GOOS, goruntime.GOARCH)
}

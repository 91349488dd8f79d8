package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// store is every measured run of a calibration. With a folder (-store)
// each run is written there the moment it ends, beside measure.json (how
// the runs were made), so an interrupted calibration loses at most the run
// it was in, a resumed one measures only what is missing, and the same
// runs can be judged again (-judge-only) by another judge or at another
// tolerance.
type store struct {
	dir     string // "" keeps the runs in memory only
	Measure measure
	runs    map[runKey]*storedRun
	// maxLoad, when > 0, leaves out of every pool the runs that started
	// at a higher 1-minute load average (-max-load).
	maxLoad float64
}

// runKey names a run by its pool and index.
type runKey struct {
	Pool  string
	Index int
}

// storedRun is one measured run: its records as `run` writes them.
type storedRun struct {
	Spec runSpec
	// Drift is the speed factor the simulator drew for the run (1 on a
	// real server): every delay of the run was multiplied by it.
	Drift   float64
	Started time.Time
	Wall    time.Duration
	// Load1 is the machine's 1-minute load average when the run started.
	Load1 float64
	// Records are the measured requests, token-counted, in completion
	// order.
	Records []metrics.Record
}

const measureFile = "measure.json"

// openStore opens (or creates) the store in dir for runs made as m says.
// A store made otherwise is refused: its runs would not pair with new
// ones. judgeOnly takes the store's own settings instead.
func openStore(dir string, m measure, judgeOnly bool) (*store, error) {
	st := &store{dir: dir, Measure: m, runs: map[runKey]*storedRun{}}
	if dir == "" {
		return st, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, measureFile))
	switch {
	case errors.Is(err, fs.ErrNotExist) && judgeOnly:
		return nil, fmt.Errorf("-store %s: no calibration in it (%s is missing)", dir, measureFile)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
			return nil, err
		}
		b, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, measureFile), append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
		return st, nil
	case err != nil:
		return nil, err
	}
	var saved measure
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, measureFile), err)
	}
	if !judgeOnly && saved != m {
		return nil, fmt.Errorf("-store %s holds runs made otherwise (%s); give another -store or the same settings", dir, saved.describe())
	}
	st.Measure = saved
	return st, st.loadRuns()
}

func (st *store) loadRuns() error {
	files, err := filepath.Glob(filepath.Join(st.dir, "runs", "*.gob.gz"))
	if err != nil {
		return err
	}
	for _, f := range files {
		r, err := readRun(f)
		if err != nil {
			return err
		}
		st.runs[runKey{r.Spec.Pool, r.Spec.Index}] = r
	}
	return nil
}

// has says whether spec was measured already.
func (st *store) has(spec runSpec) bool {
	r, ok := st.runs[runKey{spec.Pool, spec.Index}]
	return ok && r.Spec.Seed == spec.Seed
}

// add keeps r, on disk first when the store has a folder.
func (st *store) add(r *storedRun) error {
	if st.dir != "" {
		if err := writeRun(st.runFile(r.Spec), r); err != nil {
			return err
		}
	}
	st.runs[runKey{r.Spec.Pool, r.Spec.Index}] = r
	return nil
}

// pool lists the runs of pool name in index order, the first n of them
// (all with n < 0).
func (st *store) pool(name string, n int) []*storedRun {
	var out []*storedRun
	for k, r := range st.runs {
		if k.Pool == name && (st.maxLoad <= 0 || r.Load1 <= st.maxLoad) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *storedRun) int { return cmp.Compare(a.Spec.Index, b.Spec.Index) })
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// all lists every run in the order measured (within -max-load).
func (st *store) all() []*storedRun {
	out := make([]*storedRun, 0, len(st.runs))
	for _, r := range st.runs {
		if st.maxLoad <= 0 || r.Load1 <= st.maxLoad {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *storedRun) int { return a.Started.Compare(b.Started) })
	return out
}

func (st *store) runFile(s runSpec) string {
	slug := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s.Pool)
	return filepath.Join(st.dir, "runs", slug+"-"+strconv.Itoa(s.Index)+".gob.gz")
}

// writeRun writes r to path through a temporary file, so a run on disk is
// always whole.
func writeRun(path string, r *storedRun) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	err = gob.NewEncoder(zw).Encode(r)
	err = errors.Join(err, zw.Close(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

func readRun(path string) (*storedRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var r storedRun
	if err := gob.NewDecoder(zr).Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// data is the run as a judge reads a stored run (storedrun's Reduce and
// Point.Runs): the summary accumulated over the records in completion
// order, the per-request values in send order.
func (r *storedRun) data() metrics.RunData {
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

// machine names the CPU and core count, for the tables.
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
	return fmt.Sprintf("nproc %d (%s), %s/%s", goruntime.NumCPU(), model, goruntime.GOOS, goruntime.GOARCH)
}

// loadAverage is the 1-minute load average (0 where /proc has none).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

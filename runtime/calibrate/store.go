package calibrate

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
	"slices"
	"strconv"
	"strings"
)

// Store is every measured run of a calibration. With a folder each run is
// written there the moment it ends, beside settings.json (how the runs
// were made), so an interrupted calibration loses at most the run it was
// in, a resumed one measures only what is missing, and the same runs can
// be judged again by another judge or at another tolerance.
type Store struct {
	dir  string // "" keeps the runs in memory only
	runs map[key]*Run
	// MaxLoad, when > 0, leaves out of every pool the runs that started
	// at a higher 1-minute load average.
	MaxLoad float64
}

// key names a run by its pool and index.
type key struct {
	Pool  string
	Index int
}

// SettingsFile holds, in a store's folder, how its runs were made. Its
// old name, measure.json (bench/calibrate's stores before the product
// command), is read too.
const (
	SettingsFile    = "settings.json"
	oldSettingsFile = "measure.json"
)

// OpenStore opens (or creates) the store in dir for runs made as
// *settings says. A store made otherwise is refused, naming how its runs
// were made (describe): its runs would not pair with new ones. With
// judgeOnly the store's own settings replace *settings instead, and a
// folder without a calibration is an error.
func OpenStore[S comparable](dir string, settings *S, judgeOnly bool, describe func(S) string) (*Store, error) {
	st := &Store{dir: dir, runs: map[key]*Run{}}
	if dir == "" {
		return st, nil
	}
	path := filepath.Join(dir, SettingsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		old := filepath.Join(dir, oldSettingsFile)
		if ob, oerr := os.ReadFile(old); oerr == nil {
			path, b, err = old, ob, nil
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && judgeOnly:
		return nil, fmt.Errorf("store %s: no calibration in it (%s is missing)", dir, SettingsFile)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
			return nil, err
		}
		b, _ := json.MarshalIndent(settings, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
		return st, nil
	case err != nil:
		return nil, err
	}
	var saved S
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !judgeOnly && saved != *settings {
		return nil, fmt.Errorf("store %s holds runs made otherwise (%s); give another store or the same settings", dir, describe(saved))
	}
	*settings = saved
	return st, st.load()
}

func (st *Store) load() error {
	files, err := filepath.Glob(filepath.Join(st.dir, "runs", "*.gob.gz"))
	if err != nil {
		return err
	}
	for _, f := range files {
		r, err := readRun(f)
		if err != nil {
			return err
		}
		st.runs[key{r.Spec.Pool, r.Spec.Index}] = r
	}
	return nil
}

// Has says whether spec was measured already.
func (st *Store) Has(spec RunSpec) bool {
	r, ok := st.runs[key{spec.Pool, spec.Index}]
	return ok && r.Spec.Seed == spec.Seed
}

// Add keeps r, on disk first when the store has a folder.
func (st *Store) Add(r *Run) error {
	if st.dir != "" {
		if err := writeRun(st.runFile(r.Spec), r); err != nil {
			return err
		}
	}
	st.runs[key{r.Spec.Pool, r.Spec.Index}] = r
	return nil
}

// Len is how many runs the store holds.
func (st *Store) Len() int { return len(st.runs) }

// Pool lists the runs of pool name in index order, the first n of them
// (all with n < 0).
func (st *Store) Pool(name string, n int) []*Run {
	var out []*Run
	for k, r := range st.runs {
		if k.Pool == name && st.within(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Run) int { return cmp.Compare(a.Spec.Index, b.Spec.Index) })
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// All lists every run in the order measured (within MaxLoad).
func (st *Store) All() []*Run {
	out := make([]*Run, 0, len(st.runs))
	for _, r := range st.runs {
		if st.within(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Run) int { return a.Started.Compare(b.Started) })
	return out
}

func (st *Store) within(r *Run) bool { return st.MaxLoad <= 0 || r.Load1 <= st.MaxLoad }

func (st *Store) runFile(s RunSpec) string {
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
func writeRun(path string, r *Run) error {
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

func readRun(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var r Run
	if err := gob.NewDecoder(zr).Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.upgrade()
	return &r, nil
}

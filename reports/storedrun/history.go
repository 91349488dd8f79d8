package storedrun

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/llmbench/llmbench/runtime/failure"
)

// runMarkers are files only a stored run's own folder holds at its top: a
// point's records or export, a run's or an analyze sweep's summary, a
// run's checkpoint. A folder holding one is one run, never a history.
var runMarkers = []string{"records.parquet", "profile_export.json", "summary.json", "checkpoint.json"}

// LoadHistory reads path as one run or as a history of them, in the
// order they ran (by Start; runs that started together in the order of
// their folder names): `compare`'s candidates and the baseline history
// of `run --baseline` are read this one way.
//
//   - a file, a folder holding a run's own files at its top (records.parquet,
//     profile_export.json, summary.json, checkpoint.json), or any folder
//     Load accepts as one run is that one run, as Load reads it;
//   - a folder Load refuses only because it holds several runs — two
//     records files claim the same repeat of a point (two runs of one
//     scenario side by side), or no records file or export sits at or
//     directly in it (a folder of GenAI-Perf export folders) — is a
//     history: each immediate subfolder holding a records file or a
//     profile_export.json is one run, and an error in one of them is an
//     error, never a run silently dropped. Subfolders holding neither
//     (logs/, plots/) are passed over;
//   - a folder with no such subfolder is an Input error naming it and
//     what was expected.
//
// Any other failure of Load (an unreadable or corrupt file) is returned
// as it is. A history is read as one run up to the clash first, then run
// by run; Load's only notes are of records files it repairs on disk, so
// each is said once, when the file is repaired.
func LoadHistory(path string, opt Options) ([]*Run, error) {
	s, err := Load(path, opt)
	if err == nil {
		return []*Run{s}, nil
	}
	if st, serr := os.Stat(path); serr != nil || !st.IsDir() || holdsMarker(path) ||
		!errors.Is(err, errNothing) && !errors.Is(err, errSameRepeat) && !errors.Is(err, errBothSides) {
		return nil, err
	}
	runs, err := runFolders(path)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, failure.Inputf("%s: no records.parquet and no other tool's results found in it or in any of its subfolders: "+
			"want a run, analyze or profile folder, a point folder, a records.parquet, a profile_export.json, "+
			"or a folder of those (a history)", path)
	}
	sets := make([]*Run, len(runs))
	for i, dir := range runs {
		if sets[i], err = Load(dir, opt); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(sets, func(a, b *Run) int { return a.Start.Compare(b.Start) })
	return sets, nil
}

// holdsMarker reports whether dir holds one of runMarkers at its top.
func holdsMarker(dir string) bool {
	return slices.ContainsFunc(runMarkers, func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	})
}

// runFolders are dir's immediate subfolders that hold a records file at
// any depth or a profile_export.json at their top, in name order.
func runFolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, failure.Inputf("%w", err)
	}
	var runs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		files, err := FindRecords(sub)
		if err != nil {
			return nil, failure.Inputf("%s: %w", sub, err)
		}
		if _, export := ExportPath(sub); len(files) > 0 || export {
			runs = append(runs, sub)
		}
	}
	return runs, nil
}

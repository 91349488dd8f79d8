package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime/failure"
)

// What a crashed point recovers to is written beside what the crash
// left, never over it (docs/records.md, "After a crash"): a file cut
// short may hold more than llmbench can make sense of, and a file of a
// finished run that was damaged later (a truncated copy) held more than
// any recovery gives back. Recovered files are named by recoveredName:
// records.parquet → records.recovered.parquet, profile_export.json →
// profile_export.recovered.json.

// errNothingRecovered is a records file with no footer and not one
// complete row group: a run killed before it wrote any (exit 3).
var errNothingRecovered = errors.New("no footer (its run was killed before finishing it) and not one complete row group: recovered 0 requests, nothing to rebuild; the file is left as it was")

// recoveredName is where what is recovered from path is written.
func recoveredName(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".recovered" + ext
}

// recoverBeside recovers the records file f (at path) that has no footer
// into recoveredName(path) and opens that. The crashed file is only read.
// An earlier recovery that holds at least as many rows is kept and used;
// a recovery of no row at all is a failure of the run (exit 3), since no
// number can be rebuilt from it, and writes nothing.
func recoverBeside(stderr io.Writer, f *os.File, path string) (*os.File, int64, error) {
	dst := recoveredName(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".records.recovering-*")
	if err != nil {
		return nil, 0, fmt.Errorf("its run was interrupted before finishing it, and it cannot be recovered beside it: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	info, err := records.Recover(f, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	if info.Rows == 0 {
		return nil, 0, failure.New(failure.Run, errNothingRecovered)
	}
	if prev := rowsIn(dst); prev >= info.Rows {
		fmt.Fprintf(stderr, "llmbench: %s has no footer (its run was killed before finishing it): using %s, recovered earlier with %d requests; the file is left as it was\n",
			path, dst, prev)
	} else {
		if err := os.Rename(tmp.Name(), dst); err != nil {
			return nil, 0, err
		}
		fmt.Fprintf(stderr, "llmbench: %s has no footer (its run was killed before finishing it): recovered %d requests in %d row groups into %s (%d bytes of an unfinished row group left out); the file is left as it was\n",
			path, info.Rows, info.RowGroups, dst, info.DroppedBytes)
	}
	return openSized(dst)
}

// rowsIn is the number of rows of the finished records file at path; -1
// when there is none or it cannot be read.
func rowsIn(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return -1
	}
	var n int64
	if _, err := records.ReadEach(f, st.Size(), func(*metrics.Record) error { n++; return nil }); err != nil {
		return -1
	}
	return n
}

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
	rj, rc := genaiperf.ExportFileNames(recoveredName(exportFile))
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

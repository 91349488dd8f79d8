package storedrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime/failure"
)

// RecordsFile is the name of every point run's records file.
const RecordsFile = "records.parquet"

// What a crashed point recovers to is written beside what the crash
// left, never over it (docs/records.md, "After a crash"): a file cut
// short may hold more than llmbench can make sense of, and a file of a
// finished run that was damaged later (a truncated copy) held more than
// any recovery gives back. Recovered files are named by RecoveredName:
// records.parquet → records.recovered.parquet, profile_export.json →
// profile_export.recovered.json.

// ErrNothingRecovered is a records file with no footer and not one
// complete row group: a run killed before it wrote any (exit 3).
var ErrNothingRecovered = errors.New("no footer (its run was killed before finishing it) and not one complete row group: recovered 0 requests, nothing to rebuild; the file is left as it was")

// RecoveredName is where what is recovered from path is written.
func RecoveredName(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".recovered" + ext
}

// FindRecords lists the records.parquet files at or below path.
func FindRecords(path string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == RecordsFile {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// openRecordsFile opens a records file for reading. One whose run was
// killed before it could write the footer is recovered beside it (see
// recoverBeside) and the recovered file is opened instead.
func openRecordsFile(stderr io.Writer, path string) (*os.File, int64, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, 0, err
	}
	if _, err := records.ReadMeta(f, size); !errors.Is(err, records.ErrNoFooter) {
		return f, size, nil // readable, or an error the reader will report
	}
	defer f.Close()
	return recoverBeside(stderr, f, path)
}

// openSized opens path for reading with its size, which the Parquet
// reader needs.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// recoverBeside recovers the records file f (at path) that has no footer
// into RecoveredName(path) and opens that. The crashed file is only read.
// An earlier recovery that holds at least as many rows is kept and used;
// a recovery of no row at all is a failure of the run (exit 3), since no
// number can be rebuilt from it, and writes nothing.
func recoverBeside(stderr io.Writer, f *os.File, path string) (*os.File, int64, error) {
	dst := RecoveredName(path)
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
		return nil, 0, failure.New(failure.Run, ErrNothingRecovered)
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
	f, size, err := openSized(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	var n int64
	if _, err := records.ReadEach(f, size, func(*metrics.Record) error { n++; return nil }); err != nil {
		return -1
	}
	return n
}

package records

import (
	"errors"
	"fmt"
)

// ErrCorrupt marks a records file whose bytes the Parquet reader could not
// make sense of. Errors wrapping it say where the damage was found.
var ErrCorrupt = errors.New("records: corrupt file")

// corruptError is damage found in a file, at where (its footer, a row
// range), and what it was.
type corruptError struct {
	where string
	what  string
}

func (e *corruptError) Error() string {
	return "corrupt at " + e.where + ": " + e.what + " (damaged on disk or in a copy?)"
}

func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

// guard runs fn, a call into parquet-go, and turns a panic in it into an
// error. parquet-go trusts the lengths, offsets and dictionary indexes it
// reads: a single flipped byte in a page can make it index out of range
// or build a slice from a nil pointer, where pyarrow and DuckDB read the
// file or refuse it with an error. A damaged file is bad input, to be
// reported with its name (exit 2), never a crash. Only the calls into
// parquet-go are guarded, so a bug of our own still panics.
func guard(where string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &corruptError{where: where, what: fmt.Sprintf("the Parquet reader failed: %v", r)}
		}
	}()
	return fn()
}

package records

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// smallFile writes n generated records in row groups of four, closed (a
// finished file) or not (the bytes a crash leaves: frames, no footer).
func smallFile(tb testing.TB, n int, closed bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriterOptions(&buf, testMeta, Options{RowGroupRows: 4, FlushInterval: time.Duration(-1)})
	if err != nil {
		tb.Fatal(err)
	}
	w.Finish("tokenizer", `{"model": "m"}`)
	if err := w.Write(genRecords(n, 3)...); err != nil {
		tb.Fatal(err)
	}
	if closed {
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// FuzzReadRecords feeds the records reader small files and the fixtures
// of every schema version, each edited by the fuzzer (edited: a patch and
// a cut), or any bytes at all. It must return an error or records with
// valid UTF-8 strings, never panic, and its three entry points must agree.
func FuzzReadRecords(f *testing.F) {
	bases := fileBases(f)
	addEdits(f, bases)
	f.Fuzz(func(t *testing.T, base uint8, at uint32, patch []byte, cut uint32) {
		data := edited(bases[int(base)%len(bases)], at, patch, cut)
		r := bytes.NewReader(data)
		recs, meta, err := ReadRecords(r, int64(len(data)))
		n := 0
		_, eachErr := ReadEach(r, int64(len(data)), func(*metrics.Record) error { n++; return nil })
		if (err == nil) != (eachErr == nil) || err == nil && n != len(recs) {
			t.Fatalf("ReadRecords: %d records, %v; ReadEach: %d, %v", len(recs), err, n, eachErr)
		}
		if err != nil {
			if recs != nil {
				t.Fatal("records and an error")
			}
			return
		}
		checkReadBack(t, recs)
		if m, err := ReadMeta(r, int64(len(data))); err != nil || m != meta {
			t.Fatalf("ReadMeta: %+v, %v; ReadRecords gave %+v", m, err, meta)
		}
	})
}

// FuzzRecover feeds Recover crashed and finished small files and the
// fixtures, each edited by the fuzzer (edited), or any bytes at all. It
// must not panic; a file it leaves untouched is byte for byte the same; one
// it recovers reads back with the rows it says, and recovering it again
// changes nothing.
func FuzzRecover(f *testing.F) {
	bases := fileBases(f)
	addEdits(f, bases)
	f.Fuzz(func(t *testing.T, base uint8, at uint32, patch []byte, cut uint32) {
		data := edited(bases[int(base)%len(bases)], at, patch, cut)
		path := filepath.Join(t.TempDir(), "records.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		info, out, err := recoverFile(t, path)
		if err != nil {
			if !bytes.Equal(out, data) {
				t.Fatalf("Recover failed (%v) but changed the file", err)
			}
			return
		}
		if !info.Recovered {
			if !bytes.Equal(out, data) {
				t.Fatalf("Recover changed a file it did not recover: %+v", info)
			}
			return
		}
		recs, _, err := ReadRecords(bytes.NewReader(out), int64(len(out)))
		if err != nil || int64(len(recs)) != info.Rows || int64(len(data))-info.DroppedBytes > int64(len(out)) {
			t.Fatalf("recovered %+v, which reads back as %d records: %v", info, len(recs), err)
		}
		checkReadBack(t, recs)
		again, out2, err := recoverBytes(t, out)
		if err != nil || again.Recovered || again.Rows != info.Rows || !bytes.Equal(out, out2) {
			t.Fatalf("recovering again: %+v, %v (first %+v)", again, err, info)
		}
		if _, err := ReadMeta(bytes.NewReader(out), int64(len(out))); errors.Is(err, ErrNoFooter) {
			t.Fatal("a recovered file has no footer")
		}
	})
}

// recoverFile runs Recover on the file at path and returns what it says
// and the recovered file's bytes (the file's own when it was not
// recovered); the file itself must be left as it was.
func recoverFile(t *testing.T, path string) (RecoverInfo, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recoverBytes(t, data)
}

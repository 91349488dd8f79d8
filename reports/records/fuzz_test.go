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

// FuzzReadRecords feeds the records reader arbitrary bytes, seeded with a
// small file and the fixtures of every schema version. It must return an
// error or records with valid UTF-8 strings, never panic, and its three
// entry points must agree.
func FuzzReadRecords(f *testing.F) {
	f.Add(smallFile(f, 10, true))
	f.Add(smallFile(f, 10, false))
	for _, name := range []string{"v1-02975ef", "v1", "v2", "v3"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name+".parquet"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
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

// FuzzRecover feeds Recover arbitrary files, seeded with crashed and
// finished small files. It must not panic; a file it leaves untouched is
// byte for byte the same; one it recovers reads back with the rows it
// says, and recovering it again changes nothing.
func FuzzRecover(f *testing.F) {
	crashed := smallFile(f, 10, false)
	f.Add(crashed)
	f.Add(crashed[:len(crashed)-7]) // torn inside the last frame
	f.Add(smallFile(f, 10, true))
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
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

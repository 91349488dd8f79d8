package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

// crashedRun writes recs to a real file in row groups of 100 rows, flushing
// early after the first 1020, then writes the rest without flushing. It
// returns the file's bytes as a crash would leave them (the Writer is never
// closed) and the file size after each frame, the first being the frame
// NewWriter writes.
func crashedRun(t *testing.T, recs []metrics.Record) (data []byte, frameEnds []int64) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := func() int64 {
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	w, err := NewWriterOptions(f, testMeta, Options{RowGroupRows: 100, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	frameEnds = append(frameEnds, size())
	write := func(recs []metrics.Record) {
		for len(recs) > 0 {
			n := min(len(recs), 37)
			if err := w.Write(recs[:n]...); err != nil {
				t.Fatal(err)
			}
			if s := size(); s != frameEnds[len(frameEnds)-1] {
				frameEnds = append(frameEnds, s)
			}
			recs = recs[n:]
		}
	}
	write(recs[:1020])
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	frameEnds = append(frameEnds, size())
	write(recs[1020:])
	if len(frameEnds) != 1+11 {
		t.Fatalf("frames end at %v, want the empty first frame and 11 row groups", frameEnds)
	}
	data, err = os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != frameEnds[len(frameEnds)-1] {
		t.Fatalf("file is %d bytes, last frame ends at %d", len(data), frameEnds[len(frameEnds)-1])
	}
	return data, frameEnds
}

// recoverBytes writes data to a file, recovers it and returns the result:
// the recovered file, or data when there was nothing to recover. The file
// recovered from must be left as it was.
func recoverBytes(t *testing.T, data []byte) (RecoverInfo, []byte, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recovered bytes.Buffer
	info, rerr := Recover(f, &recovered)
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, data) {
		t.Fatal("Recover changed the file it recovered")
	}
	if !info.Recovered {
		if recovered.Len() > 0 {
			t.Fatalf("Recover wrote %d bytes for a file it did not recover", recovered.Len())
		}
		return info, after, rerr
	}
	return info, recovered.Bytes(), rerr
}

// checkRecords reads data and checks it holds exactly want, field by field.
func checkRecords(t *testing.T, data []byte, want []metrics.Record) Meta {
	t.Helper()
	got, meta, err := ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if w := stored(want[i]); !reflect.DeepEqual(got[i], w) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	return meta
}

func TestRecoverCrashedFile(t *testing.T) {
	recs := genRecords(1050, 8)
	crashed, ends := crashedRun(t, recs)
	if _, _, err := ReadRecords(bytes.NewReader(crashed), int64(len(crashed))); !errors.Is(err, ErrNoFooter) {
		t.Fatalf("reading the crashed file: %v, want ErrNoFooter", err)
	}
	last, prev := ends[len(ends)-1], ends[len(ends)-2]
	corrupt := bytes.Clone(crashed)
	corrupt[(ends[4]+ends[5])/2] ^= 0x40 // in the fifth row group
	for _, c := range []struct {
		name    string
		data    []byte
		rows    int
		dropped int64
	}{
		{"crash between row groups", crashed, 1020, 0},
		{"torn in the frame header", crashed[:prev+5], 1000, 5},
		{"torn after the frame header", crashed[:prev+frameHeaderSize+4], 1000, frameHeaderSize + 4},
		{"torn mid frame", crashed[:(prev+last)/2], 1000, (last - prev) / 2},
		{"torn one byte short", crashed[:last-1], 1000, last - 1 - prev},
		{"damaged row group", corrupt, 400, last - ends[4]},
		{"crash before the first row group", crashed[:ends[0]], 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, data, err := recoverBytes(t, c.data)
			if err != nil {
				t.Fatal(err)
			}
			want := RecoverInfo{Recovered: true, Rows: int64(c.rows), RowGroups: (c.rows + 99) / 100, DroppedBytes: c.dropped}
			if info != want {
				t.Errorf("Recover: %+v, want %+v", info, want)
			}
			meta := checkRecords(t, data, recs[:c.rows])
			if !meta.Recovered || meta.Point != testMeta.Point || meta.SchemaVersion != strconv.Itoa(SchemaVersion) {
				t.Errorf("recovered metadata %+v", meta)
			}
			again, data2, err := recoverBytes(t, data)
			if err != nil || again.Recovered || again.Rows != int64(c.rows) || !bytes.Equal(data2, data) {
				t.Errorf("second Recover: %+v, %v, file changed %v", again, err, !bytes.Equal(data2, data))
			}
		})
	}
}

func TestRecoverFinishedFileIsNoop(t *testing.T) {
	recs := genRecords(450, 9)
	data := writeFile(t, recs, Options{RowGroupRows: 100})
	info, after, err := recoverBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if want := (RecoverInfo{Rows: 450, RowGroups: 5}); info != want {
		t.Errorf("Recover: %+v, want %+v", info, want)
	}
	if !bytes.Equal(after, data) {
		t.Error("Recover changed a finished file")
	}
	if meta := checkRecords(t, after, recs); meta.Recovered {
		t.Error("finished file read back as recovered")
	}
}

func TestRecoverOtherFiles(t *testing.T) {
	var plain bytes.Buffer // a Parquet file written without frames
	if err := parquet.Write(&plain, []row{{Point: "p"}}); err != nil {
		t.Fatal(err)
	}
	info, after, err := recoverBytes(t, plain.Bytes())
	if err != nil || info != (RecoverInfo{Rows: 1, RowGroups: 1}) || !bytes.Equal(after, plain.Bytes()) {
		t.Errorf("plain Parquet file: %+v, %v, changed %v", info, err, !bytes.Equal(after, plain.Bytes()))
	}
	for name, data := range map[string][]byte{
		"text":            []byte("request_id,ttft_ns\n1,2\n"),
		"empty":           nil,
		"footerless junk": append([]byte(magic), bytes.Repeat([]byte{7}, 100)...),
	} {
		_, after, err := recoverBytes(t, data)
		if !errors.Is(err, ErrNotRecords) || !bytes.Equal(after, data) {
			t.Errorf("%s: Recover error %v, changed %v", name, err, !bytes.Equal(after, data))
		}
	}
}

func TestFlushInterval(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// 1 ns has always passed by the next Write: every Write flushes.
	w, err := NewWriterOptions(f, testMeta, Options{FlushInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	recs := genRecords(4, 10)
	for i := range recs {
		if err := w.Write(recs[i]); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		info, data, err := recoverBytes(t, data)
		if err != nil || info.Rows != int64(i+1) || info.RowGroups != i+1 {
			t.Fatalf("after Write %d, before Close: %+v, %v", i+1, info, err)
		}
		checkRecords(t, data, recs[:i+1])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, data, recs)
}

func TestReadEach(t *testing.T) {
	recs := genRecords(300, 11)
	data := writeFile(t, recs, Options{RowGroupRows: 64})
	var ids []int64
	stop := errors.New("stop")
	meta, err := ReadEach(bytes.NewReader(data), int64(len(data)), func(r *metrics.Record) error {
		ids = append(ids, r.ID)
		if len(ids) == 100 {
			return stop
		}
		return nil
	})
	if err != stop || meta.Point != testMeta.Point {
		t.Fatalf("ReadEach: meta %+v, err %v; want the error fn returned", meta, err)
	}
	for i, id := range ids {
		if id != recs[i].ID {
			t.Fatalf("record %d has ID %d, want %d", i, id, recs[i].ID)
		}
	}
	if len(ids) != 100 {
		t.Errorf("fn called %d times after returning an error at the 100th", len(ids))
	}
}

// TestPyarrowReadsRecoveredFile checks a recovered file with an
// independent reader.
func TestPyarrowReadsRecoveredFile(t *testing.T) {
	py := needPyarrow(t)
	recs := genRecords(1050, 12)
	crashed, ends := crashedRun(t, recs)
	_, data, err := recoverBytes(t, crashed[:(ends[len(ends)-2]+ends[len(ends)-1])/2])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "recovered.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import json, sys
import pyarrow.parquet as pq
pf = pq.ParquetFile(sys.argv[1])
t = pf.read()
md = {k.decode(): v.decode() for k, v in (pf.schema_arrow.metadata or {}).items()}
print(json.dumps({
  "row_groups": pf.num_row_groups,
  "request_id": t.column("request_id").to_pylist(),
  "done_time_ns": t.column("done_time").cast("int64").to_pylist(),
  "chunk_offsets_ns": t.column("chunk_offsets_ns").to_pylist(),
  "recovered": md.get("llmbench.recovered"),
}))
`
	out := runPython(t, py, script, path)
	var got struct {
		RowGroups      int       `json:"row_groups"`
		RequestID      []int64   `json:"request_id"`
		DoneTimeNs     []*int64  `json:"done_time_ns"`
		ChunkOffsetsNs [][]int64 `json:"chunk_offsets_ns"`
		Recovered      string    `json:"recovered"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("pyarrow output %s: %v", out, err)
	}
	if got.RowGroups != 10 || len(got.RequestID) != 1000 || got.Recovered != "true" {
		t.Fatalf("pyarrow: %d rows in %d row groups, llmbench.recovered %q; want 1000 in 10, \"true\"",
			len(got.RequestID), got.RowGroups, got.Recovered)
	}
	for i, id := range got.RequestID {
		r := &recs[i]
		if id != r.ID || (got.DoneTimeNs[i] == nil) != (r.Done == 0) || (r.Done != 0 && *got.DoneTimeNs[i] != r.Done) {
			t.Fatalf("row %d: request_id %d, done_time %v; want %d, %d", i, id, got.DoneTimeNs[i], r.ID, r.Done)
		}
		for k, off := range got.ChunkOffsetsNs[i] {
			if r.Sent+off != r.Chunks[k] {
				t.Fatalf("chunk_offsets_ns[%d][%d] = %d, want %d", i, k, off, r.Chunks[k]-r.Sent)
			}
		}
	}
}

package records

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

var testMeta = Meta{
	Scenario:      "chat-short",
	Experiment:    "sweep-concurrency",
	Point:         "concurrency16",
	Repeat:        2,
	Shard:         1,
	Model:         "meta-llama/Llama-3.1-8B-Instruct",
	EndpointURL:   "https://user:hunter2@llm.example.com:8443/v1?api_key=sk-secret&region=eu#frag",
	API:           "chat",
	Stream:        true,
	Load:          "concurrency=16",
	TokenCounting: "tokenizer",
	Version:       "0.1.0-test",
}

// genRecords makes n records covering every shape metrics distinguishes:
// open and closed loop, 0/1/many chunks, reasoning, usage or not, failures
// with and without a partial stream, several dataset components.
func genRecords(n int, seed uint64) []metrics.Record {
	rng := rand.New(rand.NewPCG(seed, 7))
	const start = int64(1_790_000_000_000_000_000)
	recs := make([]metrics.Record, n)
	for i := range recs {
		r := &recs[i]
		r.ID = int64(i)
		r.Entry = rng.IntN(500)
		r.Component = []string{"", "sharegpt", "long-context"}[rng.IntN(3)]
		r.Sent = start + int64(i)*1_000_000 + rng.Int64N(1_000_000)
		if i%2 == 0 {
			r.Scheduled = r.Sent - rng.Int64N(200_000)
		}
		r.InputTokens = 1 + rng.IntN(4000)
		if i%7 == 0 {
			r.Retries = 1 // sent again on a fresh connection
		}
		nChunks := rng.IntN(60)
		switch i % 10 {
		case 3:
			nChunks = 0
		case 4:
			nChunks = 1
		}
		t := r.Sent + 20_000_000 + rng.Int64N(200_000_000)
		for range nChunks {
			r.Chunks = append(r.Chunks, t)
			t += rng.Int64N(50_000_000) // ns jitter, not µs aligned; 0 gaps too
		}
		r.Output = strings.Repeat("x", nChunks)
		for k := range nChunks {
			r.ChunkEnds = append(r.ChunkEnds, int32(k+1))
		}
		r.OutputTokens = nChunks + rng.IntN(3)
		if i%7 == 0 && nChunks > 2 {
			r.ReasoningChunks = 1 + rng.IntN(nChunks)
		}
		r.Done = t + rng.Int64N(1_000_000)
		if i%5 == 0 {
			r.Usage = metrics.Usage{PromptTokens: r.InputTokens, CompletionTokens: r.OutputTokens, Reported: true}
			if i%3 != 0 { // some servers say how many were cached (0 too), some never do
				r.Usage.CachedTokens, r.Usage.CachedReported = rng.IntN(r.InputTokens+1)*(i%2), true
			}
		}
		switch i % 13 {
		case 5:
			r.Err = &metrics.Failure{Class: metrics.ErrHTTP, Status: 503, Message: "service unavailable"}
			r.Chunks, r.ChunkEnds, r.Output, r.OutputTokens, r.ReasoningChunks = nil, nil, "", 0, 0
		case 6:
			r.Err = &metrics.Failure{Class: metrics.ErrReset, Message: "connection reset by peer"}
		case 7:
			r.Err = &metrics.Failure{Class: metrics.ErrConnect, Message: ""}
			r.Chunks, r.ChunkEnds, r.Output, r.OutputTokens, r.ReasoningChunks = nil, nil, "", 0, 0
			r.Done = 0
		}
	}
	return recs
}

func writeFile(t *testing.T, recs []metrics.Record, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriterOptions(&buf, testMeta, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven batches, so batches straddle row group boundaries.
	for len(recs) > 0 {
		n := min(len(recs), 37)
		if err := w.Write(recs[:n]...); err != nil {
			t.Fatal(err)
		}
		recs = recs[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// stored is what a record should look like after a round trip: the text
// fields are not stored.
func stored(r metrics.Record) metrics.Record {
	r.Output, r.ChunkEnds = "", nil
	return r
}

func TestRoundTrip(t *testing.T) {
	recs := genRecords(2000, 1)
	data := writeFile(t, recs, Options{RowGroupRows: 300})
	meta := checkRecords(t, data, recs)
	wantMeta := testMeta
	wantMeta.SchemaVersion = strconv.Itoa(SchemaVersion)
	wantMeta.EndpointURL = "https://llm.example.com:8443/v1?region=eu"
	if meta != wantMeta {
		t.Errorf("meta:\n got %+v\nwant %+v", meta, wantMeta)
	}
}

func TestSummarizeEqual(t *testing.T) {
	recs := genRecords(3000, 2)
	data := writeFile(t, recs, Options{RowGroupRows: 1000})
	got, _, err := ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	opts := metrics.Options{Goodput: []metrics.SLO{
		{Metric: metrics.GoodputTTFT, Value: 150},
		{Metric: metrics.GoodputITL, Value: 5},
	}}
	want := metrics.Summarize(recs, opts)
	have := metrics.Summarize(got, opts)
	if !reflect.DeepEqual(have, want) {
		a, _ := json.Marshal(have)
		b, _ := json.Marshal(want)
		t.Fatalf("Summarize differs after round trip:\n got %s\nwant %s", a, b)
	}
	if want.Failed == 0 || want.TimeToFirstOutputToken == nil || want.ScheduleLag == nil || want.ChunkGap == nil {
		t.Fatalf("test data does not exercise every metric: %+v", want)
	}
	// The per-request columns are metrics.Derive's values.
	rows := readRows(t, data)
	for i := range recs {
		m := metrics.Derive(&recs[i])
		if m.HasITL != (rows[i].ITLNs != nil) || (m.HasITL && *rows[i].ITLNs != m.ITL) {
			t.Fatalf("row %d itl_ns %v, Derive %+v", i, rows[i].ITLNs, m)
		}
		if m.HasContent != (rows[i].TTFTNs != nil) || (m.HasContent && *rows[i].TTFTNs != m.TTFT) {
			t.Fatalf("row %d ttft_ns %v, Derive %+v", i, rows[i].TTFTNs, m)
		}
		if len(rows[i].ChunkGapsUs) != recs[i].GapCount() {
			t.Fatalf("row %d: %d gaps, the record %d", i, len(rows[i].ChunkGapsUs), recs[i].GapCount())
		}
		k := 0
		for g := range recs[i].ChunkGaps() {
			if d := int64(rows[i].ChunkGapsUs[k])*1000 - g; d < -500 || d > 500 {
				t.Fatalf("row %d gap %d: %d µs for %d ns", i, k, rows[i].ChunkGapsUs[k], g)
			}
			k++
		}
	}
}

func readRows(t *testing.T, data []byte) []row {
	t.Helper()
	rows, err := parquet.Read[row](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// countingWriter records how many bytes reached the output.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

func TestRowGroupsFlushedWhileWriting(t *testing.T) {
	recs := genRecords(95, 3)
	var buf bytes.Buffer
	cw := &countingWriter{}
	w, err := NewWriterOptions(&mw{&buf, cw}, testMeta, Options{RowGroupRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for i := range recs {
		if err := w.Write(recs[i]); err != nil {
			t.Fatal(err)
		}
		if (i+1)%10 == 0 {
			sizes = append(sizes, cw.n)
		}
	}
	for k := range sizes {
		if k > 0 && sizes[k] <= sizes[k-1] || sizes[k] == 0 {
			t.Fatalf("bytes written after each full row group %v: row group %d was not written out", sizes, k+1)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n != 10 {
		t.Errorf("%d row groups, want 10 (9 full + 1 partial)", n)
	}
	if f.NumRows() != 95 || w.Rows() != 95 {
		t.Errorf("NumRows %d, Rows %d, want 95", f.NumRows(), w.Rows())
	}
}

type mw struct {
	a *bytes.Buffer
	b *countingWriter
}

func (m *mw) Write(p []byte) (int, error) { m.b.Write(p); return m.a.Write(p) }

func TestMetadataAndNoSecrets(t *testing.T) {
	data := writeFile(t, genRecords(50, 4), Options{})
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"llmbench.schema_version": strconv.Itoa(SchemaVersion),
		"llmbench.scenario":       "chat-short",
		"llmbench.experiment":     "sweep-concurrency",
		"llmbench.point":          "concurrency16",
		"llmbench.repeat":         "2",
		"llmbench.shard":          "1",
		"llmbench.model":          "meta-llama/Llama-3.1-8B-Instruct",
		"llmbench.endpoint_url":   "https://llm.example.com:8443/v1?region=eu",
		"llmbench.api":            "chat",
		"llmbench.stream":         "true",
		"llmbench.load":           "concurrency=16",
		"llmbench.token_counting": "tokenizer",
		"llmbench.version":        "0.1.0-test",
	}
	for k, v := range want {
		if got, ok := f.Lookup(k); !ok || got != v {
			t.Errorf("metadata %s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	for _, secret := range []string{"hunter2", "sk-secret", "api_key", "user:", "frag"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("file contains %q", secret)
		}
	}
	for _, kv := range f.Metadata().KeyValueMetadata {
		if k := strings.ToLower(kv.Key); strings.Contains(k, "header") || strings.Contains(k, "authorization") {
			t.Errorf("metadata key %q", kv.Key)
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	w, err := NewWriter(&bytes.Buffer{}, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(genRecords(1, 5)...); err == nil {
		t.Error("Write after Close succeeded")
	}
}

func TestEmptyFile(t *testing.T) {
	data := writeFile(t, nil, Options{})
	got, meta, err := ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(got) != 0 || meta.Point != "concurrency16" {
		t.Fatalf("empty file: %d records, meta %+v, err %v", len(got), meta, err)
	}
}

// TestPyarrowReadsFile checks the file with an independent reader.
func TestPyarrowReadsFile(t *testing.T) {
	py := needPyarrow(t)
	recs := genRecords(500, 6)
	path := filepath.Join(t.TempDir(), "records.parquet")
	if err := os.WriteFile(path, writeFile(t, recs, Options{RowGroupRows: 128}), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import json, sys
import pyarrow.parquet as pq
pf = pq.ParquetFile(sys.argv[1])
t = pf.read()
md = {k.decode(): v.decode() for k, v in (pf.schema_arrow.metadata or {}).items()}
print(json.dumps({
  "rows": t.num_rows,
  "row_groups": pf.num_row_groups,
  "columns": t.column_names,
  "types": {f.name: str(f.type) for f in t.schema},
  "request_id": t.column("request_id").to_pylist()[:5],
  "send_time_ns": [x.value for x in t.column("send_time")[:3]],
  "ttft_ns": t.column("ttft_ns").to_pylist(),
  "error_class": t.column("error_class").to_pylist(),
  "cached_tokens": t.column("cached_tokens").to_pylist(),
  "chunk_offsets_ns": t.column("chunk_offsets_ns").to_pylist()[:20],
  "chunk_gaps_us_len": [len(x or []) for x in t.column("chunk_gaps_us").to_pylist()],
  "point": md.get("llmbench.point"),
}))
`
	out := runPython(t, py, script, path)
	var got struct {
		Rows           int               `json:"rows"`
		RowGroups      int               `json:"row_groups"`
		Columns        []string          `json:"columns"`
		Types          map[string]string `json:"types"`
		RequestID      []int64           `json:"request_id"`
		SendTimeNs     []int64           `json:"send_time_ns"`
		TTFTNs         []*int64          `json:"ttft_ns"`
		ErrorClass     []*string         `json:"error_class"`
		CachedTokens   []*int64          `json:"cached_tokens"`
		ChunkOffsetsNs [][]int64         `json:"chunk_offsets_ns"`
		ChunkGapsUsLen []int             `json:"chunk_gaps_us_len"`
		Point          string            `json:"point"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("pyarrow output %s: %v", out, err)
	}
	if got.Rows != len(recs) || got.RowGroups != 4 {
		t.Errorf("pyarrow: %d rows in %d row groups, want %d in 4", got.Rows, got.RowGroups, len(recs))
	}
	var wantCols []string // every column of the schema, in its order
	for _, f := range parquet.SchemaOf(new(row)).Fields() {
		wantCols = append(wantCols, f.Name())
	}
	if len(wantCols) < 35 || wantCols[0] != "scenario" {
		t.Fatalf("the schema's columns %v: want scenario first and every column since version 1", wantCols)
	}
	if !reflect.DeepEqual(got.Columns, wantCols) {
		t.Errorf("pyarrow columns %v\nwant %v", got.Columns, wantCols)
	}
	for col, typ := range map[string]string{
		"send_time": "timestamp[ns, tz=UTC]", "ttft_ns": "int64", "isl_tokens": "int32",
		"chunk_gaps_us": "list<element: int32 not null>", "chunk_offsets_ns": "list<element: int64 not null>",
		"error_class": "string", "cached_tokens": "int32",
	} {
		if got.Types[col] != typ {
			t.Errorf("pyarrow type of %s: %q, want %q", col, got.Types[col], typ)
		}
	}
	if got.Point != "concurrency16" {
		t.Errorf("pyarrow metadata llmbench.point = %q", got.Point)
	}
	for i, id := range got.RequestID {
		if id != recs[i].ID {
			t.Errorf("request_id[%d] = %d, want %d", i, id, recs[i].ID)
		}
	}
	for i, ts := range got.SendTimeNs {
		if ts != recs[i].Sent {
			t.Errorf("send_time[%d] = %d, want %d", i, ts, recs[i].Sent)
		}
	}
	for i := range recs {
		m := metrics.Derive(&recs[i])
		if (got.TTFTNs[i] != nil) != m.HasContent || (m.HasContent && *got.TTFTNs[i] != m.TTFT) {
			t.Fatalf("ttft_ns[%d] = %v, want %+v", i, got.TTFTNs[i], m.TTFT)
		}
		if u := recs[i].Usage; (got.CachedTokens[i] != nil) != (u.Reported && u.CachedReported) ||
			(got.CachedTokens[i] != nil && *got.CachedTokens[i] != int64(u.CachedTokens)) {
			t.Fatalf("cached_tokens[%d] = %v, want %+v", i, got.CachedTokens[i], u)
		}
		if (got.ErrorClass[i] == nil) != recs[i].Completed() ||
			(got.ErrorClass[i] != nil && *got.ErrorClass[i] != string(recs[i].Err.Class)) {
			t.Fatalf("error_class[%d] = %v, want %+v", i, got.ErrorClass[i], recs[i].Err)
		}
		if got.ChunkGapsUsLen[i] != recs[i].GapCount() {
			t.Fatalf("len(chunk_gaps_us[%d]) = %d, want %d", i, got.ChunkGapsUsLen[i], recs[i].GapCount())
		}
	}
	for i, offs := range got.ChunkOffsetsNs {
		for k, off := range offs {
			if recs[i].Sent+off != recs[i].Chunks[k] {
				t.Fatalf("chunk_offsets_ns[%d][%d] = %d, want %d", i, k, off, recs[i].Chunks[k]-recs[i].Sent)
			}
		}
	}
}

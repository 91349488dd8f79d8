// Command gen writes the records fixture of the schema version of the
// records package it is built with: DIR/vN.parquet, a small file with one
// request of every shape the schema distinguishes, and DIR/vN.json, what
// records.ReadRecords returns for it (the metadata and the records), which
// TestReadFixtures holds every later reader to. From the repository root:
//
//	go run ./reports/records/testdata/gen
//
// A past version's fixture is never rewritten: it is what files of that
// version look like. The fixture of an earlier writer is made by running
// this program, unchanged, in a worktree of that commit with -name (see
// docs/records.md, "Schema versions"); it therefore uses only API that
// every writer since the first has.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/records"
)

// config is the run description `llmbench profile` stored for a run of
// this shape when version 1 was current; records treats it as opaque.
const config = `{"Subcommand":"profile","Models":["demo-model"],"EndpointType":"chat","Streaming":true,"URL":"http://127.0.0.1:8000/v1","Endpoint":"","ServiceKind":"openai","ServerMetricsURLs":["http://localhost:9400/metrics"],"Stimulus":{"Concurrency":4,"RequestRate":0,"FixedSchedule":false},"Objective":"","Sweep":null,"RequestCount":27,"MeasurementInterval":0,"WarmupRequestCount":0,"Goodput":null,"ExtraInputs":null,"InputFile":"","NumDatasetEntries":100,"RandomSeed":0,"SyntheticTokens":{"Mean":20,"Stddev":0},"OutputTokens":{"Mean":5,"Stddev":0,"Deterministic":false},"PrefixPrompts":0,"PrefixPromptLength":100,"CheckpointDir":"","EnableCheckpointing":false,"ArtifactDir":"artifacts","ProfileExportFile":"profile_export.json","Tokenizer":"","Version":"llmbench fixture","TokenCounting":"usage","RequestDistribution":"constant"}`

// meta is the fixture's run; its URL carries a credential that the
// writer must strip.
var meta = records.Meta{
	Scenario: "fixture", Experiment: "chat-capacity", Point: "concurrency4", Repeat: 1, Shard: 0,
	Model: "demo-model", EndpointURL: "http://127.0.0.1:8000/v1?api_key=sk-fixture", API: "chat",
	Stream: true, Load: "concurrency=4", TokenCounting: "usage", Version: "fixture",
}

// pointRecord is the saved plan a runner stores since schema version 2;
// records treats it as opaque.
const pointRecord = `{"version":2,"scenario":"fixture","plan":{"name":"chat-capacity","endpoint":{"url":"http://127.0.0.1:8000/v1","api":"chat","stream":true,"model":"demo-model"},"load":{"concurrency":4},"requests":27,"repeats":1,"seed":0,"sweep":{"grid":[{"name":"concurrency","values":[4]}]},"dataset":"synthetic(input_tokens=fixed(20), output_tokens=fixed(5))","gates":["ttft.p99 < 500ms"]},"point":{"params":{"concurrency":4},"repeat":1,"index":0},"token_counting":{"mode":"usage"}}`

// pointRecorder is Writer.SetPointRecord, which the writers before schema
// version 2 do not have.
type pointRecorder interface {
	SetPointRecord(record string)
}

// finisher is Writer.Finish, which the writers before the run description
// (before commit 0bdad92) do not have.
type finisher interface {
	Finish(tokenCounting, config string)
}

// expected is the content of vN.json.
type expected struct {
	Meta    records.Meta
	Records []metrics.Record
}

func main() {
	dir := flag.String("dir", "reports/records/testdata/fixtures", "folder to write the fixture into")
	name := flag.String("name", fmt.Sprintf("v%v", records.SchemaVersion), "file name without extension")
	flag.Parse()
	if err := write(filepath.Join(*dir, *name)); err != nil {
		log.Fatal(err)
	}
}

// write writes base.parquet and base.json, after checking that the file
// reads back as the records written.
func write(base string) error {
	recs := fixtureRecords()
	data, err := encode(recs)
	if err != nil {
		return err
	}
	got, gotMeta, err := records.ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for i := range recs {
		recs[i].Output, recs[i].ChunkEnds = "", nil // not stored
	}
	if !reflect.DeepEqual(got, recs) {
		return fmt.Errorf("records read back differ from those written")
	}
	js, err := json.MarshalIndent(expected{gotMeta, got}, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".parquet", data, 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".json", append(js, '\n'), 0o644)
}

// encode writes recs as a records file in row groups of 10 rows.
func encode(recs []metrics.Record) ([]byte, error) {
	var buf bytes.Buffer
	w, err := records.NewWriterOptions(&buf, meta, records.Options{RowGroupRows: 10})
	if err != nil {
		return nil, err
	}
	if err := w.Write(recs...); err != nil {
		return nil, err
	}
	if f, ok := any(w).(finisher); ok {
		f.Finish(meta.TokenCounting, config)
	}
	if p, ok := any(w).(pointRecorder); ok {
		p.SetPointRecord(pointRecord)
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fixtureRecords returns 27 requests, three of each of nine shapes, with
// timestamps that are not µs-aligned so that rounding would show.
func fixtureRecords() []metrics.Record {
	const start = int64(1_790_000_000_000_000_000)
	recs := make([]metrics.Record, 27)
	for i := range recs {
		r := &recs[i]
		r.ID, r.Entry = int64(i), i*37%100
		r.Component = []string{"chat", "rag"}[i%2]
		r.Sent = start + int64(i)*7_000_123
		r.InputTokens = 20 + i
		shape(r, i%9)
		if i%9 == 0 { // since version 4: the shape-0 requests are one conversation's three turns
			r.Session, r.Turn, r.LastTurn = "fixture-session", i/9+1, i == 18
		}
		r.Warmup = i < 2  // since version 5: an auto point's warm-up rows
		r.Replica = i % 3 // since version 5: an endpoint of three replicas
		if i%9 == 1 {     // since version 7: the non-streaming requests carried two pictures and a clip
			setMedia(r, i)
		}
	}
	return recs
}

// shape makes r the request of one shape: completions streamed, single
// chunk, open loop, reasoning with a zero gap, or empty; failures with
// and without a partial stream.
func shape(r *metrics.Record, kind int) {
	switch kind {
	case 0:
		stream(r, 5)
		r.Usage = metrics.Usage{PromptTokens: r.InputTokens, CompletionTokens: 5, Reported: true}
		setCached(&r.Usage, r.InputTokens/2)
	case 1: // non-streaming: one chunk, more tokens than chunks
		stream(r, 1)
		r.OutputTokens = 5
	case 2: // open loop, sent late
		r.Scheduled = r.Sent - 150_003
		stream(r, 6)
		r.Usage = metrics.Usage{PromptTokens: r.InputTokens, CompletionTokens: 6, Reported: true}
		setCached(&r.Usage, 0) // reported 0, not absent
	case 3: // reasoning model; two chunks arrive together
		stream(r, 7)
		r.ReasoningChunks = 3
		r.Chunks[2] = r.Chunks[1]
	case 4: // completed without content
		r.Done = r.Sent + 30_000_011
	case 5:
		r.Done = r.Sent + 1_000_007
		r.Err = &metrics.Failure{Class: metrics.ErrHTTP, Status: 503, Message: "service unavailable"}
	case 6: // reset mid-stream
		stream(r, 3)
		r.Err = &metrics.Failure{Class: metrics.ErrReset, Message: "connection reset by peer"}
	case 7: // never connected: no done time
		r.Err = &metrics.Failure{Class: metrics.ErrConnect, Message: "dial tcp 127.0.0.1:8000: connect: connection refused"}
	case 8:
		stream(r, 2)
		r.Done = r.Chunks[1] + 10_000_000_003
		r.Err = &metrics.Failure{Class: metrics.ErrTimeout, Message: "no chunk for 10s"}
	}
}

// setMedia gives r pictures and a clip (schema version 7's media
// columns) through reflection, so this program still builds with the
// records package of an earlier version.
func setMedia(r *metrics.Record, i int) {
	f := reflect.ValueOf(r).Elem().FieldByName("Media")
	if !f.IsValid() {
		return
	}
	for name, v := range map[string]int{"Images": 2, "ImageBytes": 41_000 + i, "Audio": 1, "AudioBytes": 64_044} {
		f.FieldByName(name).SetInt(int64(v))
	}
	f.FieldByName("AudioSeconds").SetFloat(2.0)
}

// setCached records a server-reported cached-token count (schema version
// 5's cached_tokens) through reflection, so this program still builds
// against writers whose metrics.Usage predates the field.
func setCached(u *metrics.Usage, n int) {
	v := reflect.ValueOf(u).Elem()
	if f := v.FieldByName("CachedTokens"); f.IsValid() {
		f.SetInt(int64(n))
		v.FieldByName("CachedReported").SetBool(true)
	}
}

// stream gives r n content chunks of one token each.
func stream(r *metrics.Record, n int) {
	t := r.Sent + 20_000_017
	for k := range n {
		r.Chunks = append(r.Chunks, t)
		r.ChunkEnds = append(r.ChunkEnds, int32(k+1))
		t += 3_000_000 + int64(k)*1_017
	}
	r.Output = strings.Repeat("x", n)
	r.OutputTokens = n
	r.Done = r.Chunks[n-1] + 250_001
}

package genaiperf

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// exampleRecords are the two requests of the shared example
// profile_export.json as llmbench records them: the role-only first chunk
// and [DONE] are not content chunks.
func exampleRecords() ([]metrics.Record, [][]byte) {
	payloads := [][]byte{
		[]byte(`{"messages":[{"role":"user","content":"a b c"}],"model":"my/model","stream":true}`),
		[]byte(`{"messages":[{"role":"user","content":"a b c d"}],"model":"my/model","stream":true}`),
	}
	return []metrics.Record{
		{ID: 0, Entry: 0, Sent: 1000000, Chunks: []int64{5000000, 8000000, 12000000}, ChunkEnds: []int32{1, 6, 11},
			Output: "I like dogs", Done: 13000000},
		{ID: 1, Entry: 1, Sent: 2000000, Chunks: []int64{7000000, 11000000, 15000000}, ChunkEnds: []int32{7, 20, 25},
			Output: "I don't cook food at home", Done: 16000000},
	}, payloads
}

func writeProfileExport(t *testing.T, r *Run, recs []metrics.Record, payloads [][]byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteProfileExport(&b, r, recs, payloads); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("invalid JSON: %s", b.String())
	}
	return b.String()
}

// paExport is the part of perf_analyzer's format GenAI-Perf reads.
type paExport struct {
	Experiments []struct {
		Experiment struct {
			Mode  string
			Value json.Number
		}
		Requests []struct {
			Timestamp          int64
			RequestInputs      map[string]string   `json:"request_inputs"`
			ResponseTimestamps []int64             `json:"response_timestamps"`
			ResponseOutputs    []map[string]string `json:"response_outputs"`
		}
	}
	ServiceKind string `json:"service_kind"`
	Endpoint    string
}

// contentResponses applies GenAI-Perf's OpenAI preprocessing in miniature:
// it keeps the responses whose chat delta carries content, with their times.
func contentResponses(t *testing.T, stamps []int64, outs []map[string]string) (kept []int64, texts []string) {
	t.Helper()
	for i, o := range outs {
		data := strings.TrimSuffix(strings.TrimPrefix(o["response"], "data: "), "\n\n")
		if data == "[DONE]" {
			continue
		}
		var ev struct {
			Choices []struct{ Delta struct{ Content string } }
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if len(ev.Choices) > 0 && ev.Choices[0].Delta.Content != "" {
			kept, texts = append(kept, stamps[i]), append(texts, ev.Choices[0].Delta.Content)
		}
	}
	return kept, texts
}

// TestProfileExportReadsLikeExample: GenAI-Perf's parser sees in our export
// of the example's requests exactly the content responses (times and texts)
// and payloads of the shared example file.
func TestProfileExportReadsLikeExample(t *testing.T) {
	recs, payloads := exampleRecords()
	r := exampleRun()
	var got, want paExport
	if err := json.Unmarshal([]byte(writeProfileExport(t, r, recs, payloads)), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reference(t, "example_profile_export.json"), &want); err != nil {
		t.Fatal(err)
	}
	if got.ServiceKind != want.ServiceKind || got.Endpoint != want.Endpoint ||
		got.Experiments[0].Experiment != want.Experiments[0].Experiment {
		t.Errorf("header differs: %+v vs %+v", got, want)
	}
	for i, w := range want.Experiments[0].Requests {
		g := got.Experiments[0].Requests[i]
		if g.Timestamp != w.Timestamp || !reflect.DeepEqual(g.RequestInputs, w.RequestInputs) {
			t.Errorf("request %d: inputs differ", i)
		}
		gs, gt := contentResponses(t, g.ResponseTimestamps, g.ResponseOutputs)
		ws, wt := contentResponses(t, w.ResponseTimestamps, w.ResponseOutputs)
		if !reflect.DeepEqual(gs, ws) || !reflect.DeepEqual(gt, wt) {
			t.Errorf("request %d: content responses %v %q, want %v %q", i, gs, gt, ws, wt)
		}
	}
	checkGolden(t, "example_profile_export.json", []byte(writeProfileExport(t, r, recs, payloads)))
}

// TestProfileExportGolden covers the other shapes: reasoning chunks, usage,
// a failed stream, a failed request without a response, completions,
// non-streaming and embeddings, and the request-rate experiment.
func TestProfileExportGolden(t *testing.T) {
	payloads := [][]byte{[]byte(`{"model":"m","prompt":["héllo"],"stream":true}`), []byte(`{"model":"m"}`)}
	recs := []metrics.Record{
		{ID: 7, Entry: 0, Sent: 100, Chunks: []int64{200, 300, 400}, ChunkEnds: []int32{5, 9, 18},
			ReasoningChunks: 2, Output: "Hmm, ok. \"Héllo\"\n", Done: 450,
			Usage: metrics.Usage{PromptTokens: 3, CompletionTokens: 5, Reported: true}},
		{ID: 8, Entry: 1, Sent: 110, Chunks: []int64{250}, ChunkEnds: []int32{4}, Output: "part", Done: 500,
			Err: &metrics.Failure{Class: metrics.ErrReset, Message: "connection reset by peer"}},
		{ID: 9, Entry: 1, Sent: 120, Done: 130, Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 429, Message: "rate limited"}},
	}
	chat := DefaultRun("m")
	chat.Streaming = true
	chat.Stimulus = Stimulus{RequestRate: 2.5}
	chat.Version = "llmbench 0.1.0"
	completions := chat
	completions.EndpointType = "completions"
	nonStreaming := DefaultRun("m")
	embeddings := DefaultRun("m")
	embeddings.EndpointType = "embeddings"
	for name, r := range map[string]Run{
		"profile_export_chat.json": chat, "profile_export_completions.json": completions,
		"profile_export_nonstreaming.json": nonStreaming, "profile_export_embeddings.json": embeddings,
	} {
		t.Run(name, func(t *testing.T) {
			checkGolden(t, name, []byte(writeProfileExport(t, &r, recs, payloads)))
		})
	}
}

func TestProfileExportEdgeCases(t *testing.T) {
	r := DefaultRun("m")
	got := writeProfileExport(t, &r, nil, nil)
	want := `{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[],"window_boundaries":[]}],` +
		`"version":"","service_kind":"openai","endpoint":"v1/chat/completions"}`
	if got != want {
		t.Errorf("empty export:\n got %s\nwant %s", got, want)
	}
	bad := []metrics.Record{{ID: 3, Entry: 5}}
	if err := WriteProfileExport(&bytes.Buffer{}, &r, bad, [][]byte{[]byte(`{}`)}); err == nil {
		t.Error("want an error for a record whose payload is missing")
	}
}

// TestChunkText: chunk texts concatenate back to Output, and inconsistent
// offsets are clamped instead of panicking.
func TestChunkText(t *testing.T) {
	rec := &metrics.Record{Output: "abcdef", ChunkEnds: []int32{2, 4, 6}, Chunks: make([]int64, 3)}
	var joined string
	for i := range rec.Chunks {
		joined += chunkText(rec, i)
	}
	if joined != rec.Output {
		t.Errorf("joined %q", joined)
	}
	broken := &metrics.Record{Output: "abc", ChunkEnds: []int32{5, 1}, Chunks: make([]int64, 3)}
	for i := range broken.Chunks {
		_ = chunkText(broken, i) // must not panic
	}
	// Ends past Output are cut to it; ends before the start give "".
	if a, b := chunkText(broken, 0), chunkText(broken, 1); a != "abc" || b != "" {
		t.Errorf("clamped chunks: %q %q", a, b)
	}
}

// TestHeldExportLeavesTheWarmupOut: an auto point's records come
// unflagged as they finish; held and cut at the end, its export is byte
// for byte the one its records, the warm-up flagged, would have written
// at once (the first record, failures among them, left out of the
// requests, the failures and the window), and no temporary file stays.
func TestHeldExportLeavesTheWarmupOut(t *testing.T) {
	payloads := [][]byte{[]byte(`{"model":"m","stream":true}`)}
	var recs []metrics.Record
	for i := range 7 {
		sent := int64(100 * (i + 1))
		r := metrics.Record{ID: int64(i), Sent: sent, Chunks: []int64{sent + 10, sent + 20}, ChunkEnds: []int32{1, 2}, Output: "ab", Done: sent + 25}
		if i%3 == 1 {
			r.Err = &metrics.Failure{Class: metrics.ErrReset, Message: "reset"}
		}
		recs = append(recs, r)
	}
	run := DefaultRun("m")
	run.Streaming = true
	for _, warmup := range []int{0, 1, 2, 5, 7} {
		flagged := append([]metrics.Record(nil), recs...)
		for i := range warmup {
			flagged[i].Warmup = true
		}
		want := writeProfileExport(t, &run, flagged, payloads)

		dir := t.TempDir()
		var b bytes.Buffer
		p := NewProfileExportWriter(&b, dir, &run, payloads)
		p.Hold()
		for i := range recs {
			if err := p.Write(recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if b.Len() != 0 {
			t.Errorf("warmup %d: %d bytes written while held, want none", warmup, b.Len())
		}
		if err := p.Cut(warmup); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("warmup %d: held export\n%s\nwant\n%s", warmup, b.String(), want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("warmup %d: temporary files left: %v", warmup, left)
		}
	}
}

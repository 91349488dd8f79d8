package genaiperf

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// entryRuns are the run kinds whose entries differ: streamed chat and
// completions, not streamed, embeddings, rankings and Triton.
func entryRuns() []Run {
	chat := DefaultRun("m")
	chat.Streaming = true
	completions := chat
	completions.EndpointType = "completions"
	whole, wholeCompletions := DefaultRun("m"), DefaultRun("m")
	wholeCompletions.EndpointType = "completions"
	embeddings, rankings := DefaultRun("m"), DefaultRun("m")
	embeddings.EndpointType, rankings.EndpointType = "embeddings", "rankings"
	streamedEmbeddings := embeddings
	streamedEmbeddings.Streaming = true
	triton := chat
	triton.ServiceKind = "triton"
	return []Run{chat, completions, whole, wholeCompletions, embeddings, rankings, streamedEmbeddings, triton}
}

// sameEntryAsLegacy fails unless the one-pass entry of rec equals, byte
// for byte, the entry the tree-building writer made (profileentry_legacy_test.go).
func sameEntryAsLegacy(t *testing.T, r *Run, rec *metrics.Record, payloads [][]byte) {
	t.Helper()
	tree, err := legacyRequestEntry(r, rec, payloads)
	if err != nil {
		t.Fatal(err)
	}
	want, err := marshal(tree, rapidCompact)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendEntry([]byte("prefix"), r, rec, payloads[rec.Entry])
	if err != nil {
		t.Fatal(err)
	}
	if got = bytes.TrimPrefix(got, []byte("prefix")); !bytes.Equal(got, want) {
		t.Fatalf("%s %s streaming=%v, record %+v:\n got %s\nwant %s", r.ServiceKind, r.EndpointType, r.Streaming, rec, got, want)
	}
}

// pieces are what random texts are made of: plain words, every character
// either escape treats specially, control characters, multi-byte and
// 4-byte UTF-8, U+FFFD itself, invalid UTF-8 (a lone continuation byte, a
// truncated sequence, an encoded surrogate) and DEL.
var pieces = []string{" the", "x", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "é", "東",
	"😀", "\uFFFD", "\x80", "\xe6\x9d", "\xed\xa0\x80", "\u2028", "data: ", "[DONE]", "}", "{\"a\":1}", "/"}

// randomRecord is a record with random chunk texts (inconsistent chunk
// ends at times), reasoning chunks, usage and failure.
func randomRecord(rng *rand.Rand, id int64) metrics.Record {
	rec := metrics.Record{ID: id, Sent: rng.Int64N(1 << 50), Entry: rng.IntN(2)}
	var out []byte
	for range rng.IntN(6) {
		for range rng.IntN(4) {
			out = append(out, pieces[rng.IntN(len(pieces))]...)
		}
		rec.Chunks = append(rec.Chunks, rec.Sent+rng.Int64N(1e9))
		rec.ChunkEnds = append(rec.ChunkEnds, int32(len(out)))
	}
	if rng.IntN(8) == 0 && len(rec.ChunkEnds) > 0 { // an inconsistent record
		rec.ChunkEnds[rng.IntN(len(rec.ChunkEnds))] = int32(rng.IntN(len(out)+5)) - 2
	}
	rec.Output, rec.Done = string(out), rec.Sent+rng.Int64N(2e9)
	rec.ReasoningChunks = rng.IntN(len(rec.Chunks) + 1)
	if rng.IntN(2) == 0 {
		rec.Usage = metrics.Usage{PromptTokens: rng.IntN(5000), CompletionTokens: rng.IntN(5000), Reported: true}
	}
	if rng.IntN(3) == 0 {
		rec.Err = &metrics.Failure{Class: metrics.ErrorClass(pieces[rng.IntN(len(pieces))]), Status: rng.IntN(600),
			Message: pieces[rng.IntN(len(pieces))] + " reset \"by\" peer"}
	}
	return rec
}

// TestEntryEqualsLegacyWriter: for random records of every run kind, the
// one-pass entry is byte for byte what the tree-building writer wrote.
func TestEntryEqualsLegacyWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	payloads := [][]byte{[]byte(`{"model":"m","messages":[{"role":"user","content":"a \"b\"\n é 😀"}],"stream":true}`),
		[]byte(`{"model":"m","text_input":["hi\u0001"],"max_tokens":[256],"stream":[true]}`)}
	runs := entryRuns()
	for i := range 20000 {
		rec := randomRecord(rng, int64(i))
		sameEntryAsLegacy(t, &runs[i%len(runs)], &rec, payloads)
	}
}

// FuzzEntryEqualsLegacyWriter: the same with the fuzzer's texts, payload
// and numbers.
func FuzzEntryEqualsLegacyWriter(f *testing.F) {
	f.Add("Hmm, ok. \"Héllo\"\n", []byte(`{"model":"m","stream":true}`), uint8(0), uint8(3), int64(7), true, false)
	f.Add("\xed\xa0\x80\x00\\\u2028", []byte("not json \xff"), uint8(7), uint8(1), int64(-1), false, true)
	f.Add("", []byte(`{"text_input":["a"],"model":"m"}`), uint8(7), uint8(0), int64(0), true, true)
	f.Fuzz(func(t *testing.T, text string, payload []byte, kind, chunks uint8, id int64, usage, failed bool) {
		runs := entryRuns()
		rec := metrics.Record{ID: id, Sent: id * 3, Output: text, Done: id*3 + 10, ReasoningChunks: int(chunks % 3)}
		for k := range int(chunks % 5) {
			rec.Chunks = append(rec.Chunks, id+int64(k))
			rec.ChunkEnds = append(rec.ChunkEnds, int32(len(text)*(k+1)/int(chunks%5)))
		}
		if usage {
			rec.Usage = metrics.Usage{PromptTokens: len(text), CompletionTokens: int(chunks), Reported: true}
		}
		if failed {
			rec.Err = &metrics.Failure{Class: metrics.ErrReset, Status: int(kind), Message: text}
		}
		sameEntryAsLegacy(t, &runs[int(kind)%len(runs)], &rec, [][]byte{payload})
	})
}

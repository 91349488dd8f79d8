package runtime

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

func TestCountTokens(t *testing.T) {
	reqs := []engine.Request{{Text: "a b c", Words: 3}}
	recs := []metrics.Record{
		{Chunks: []int64{1, 2}, Usage: metrics.Usage{PromptTokens: 9, CompletionTokens: 4, Reported: true}},
		{Chunks: []int64{1, 2, 3}},
	}
	c := CountTokens(recs, reqs, ByUsage, nil)
	if recs[0].InputTokens != 9 || recs[0].OutputTokens != 4 || recs[1].InputTokens != 3 || recs[1].OutputTokens != 3 {
		t.Errorf("usage counts: %+v", recs)
	}
	if c.Fallbacks != 1 || c.String() != "usage (1 requests without usage counted by chunks)" {
		t.Errorf("counting = %+v %q", c, c.String())
	}
	CountTokens(recs, reqs, ByChunks, nil)
	if recs[0].InputTokens != 3 || recs[0].OutputTokens != 2 {
		t.Errorf("chunk counts: %+v", recs[0])
	}
	// A zero-token answer is one empty chunk: no output token.
	zero := []metrics.Record{{Chunks: []int64{5}, ChunkEnds: []int32{0}}, {Chunks: []int64{1, 2, 3}, ChunkEnds: []int32{2, 2, 4}}}
	CountTokens(zero, reqs, ByChunks, nil)
	if zero[0].OutputTokens != 0 || zero[1].OutputTokens != 2 {
		t.Errorf("chunks with text: %d and %d, want 0 and 2", zero[0].OutputTokens, zero[1].OutputTokens)
	}
	if m, err := ParseCountMode("auto", false); err != nil || m != ByUsage {
		t.Errorf("auto without tokenizer = %v, %v", m, err)
	}
	if _, err := ParseCountMode("tokenizer", false); err == nil {
		t.Error("tokenizer mode without a tokenizer accepted")
	}
}

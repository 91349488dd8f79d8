package runtime

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
)

// ISL is the text's tokens: counted by usage, a request with pictures
// takes its text's nominal length, since the server's prompt_tokens count
// the pictures too; a text request keeps the server's count.
func TestUsageISLCountsTextAlone(t *testing.T) {
	reqs := []engine.Request{{Text: "a b c", Words: 20, Media: metrics.Media{Images: 1}}, {Text: "a b c", Words: 20}}
	recs := []metrics.Record{
		{Entry: 0, Media: metrics.Media{Images: 1}, Usage: metrics.Usage{PromptTokens: 596, CompletionTokens: 7, Reported: true}},
		{Entry: 1, Usage: metrics.Usage{PromptTokens: 21, CompletionTokens: 7, Reported: true}},
	}
	CountTokens(recs, reqs, ByUsage, nil)
	if recs[0].InputTokens != 20 || recs[0].OutputTokens != 7 {
		t.Errorf("with a picture: ISL %d, OSL %d; want the text's 20 and usage's 7", recs[0].InputTokens, recs[0].OutputTokens)
	}
	if recs[1].InputTokens != 21 {
		t.Errorf("text only: ISL %d, want usage's 21", recs[1].InputTokens)
	}
}

// An entry's pictures and clips reach the request body as URLs and
// input_audio parts, and its records as counts and bytes.
func TestEntryMedia(t *testing.T) {
	en := dataset.Entry{Text: "x", Images: []dataset.Image{{URL: "data:image/png;base64,AA==", Bytes: 1}, {URL: "https://h/x.png"}},
		Audio: []dataset.Audio{{Data: "UklGRg==", Format: "wav", Seconds: 1.5, Bytes: 4}}}
	images, clips := mediaParts(en)
	if len(images) != 2 || images[1] != "https://h/x.png" || len(clips) != 1 || clips[0].Format != "wav" {
		t.Errorf("parts %v %v", images, clips)
	}
	if got := mediaCounts(en); got != (metrics.Media{Images: 2, ImageBytes: 1, Audio: 1, AudioBytes: 4, AudioSeconds: 1.5}) {
		t.Errorf("counts %+v", got)
	}
}

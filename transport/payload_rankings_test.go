package transport

import (
	"encoding/json"
	"testing"
)

// The rankings body is GenAI-Perf's NIM payload, byte for byte, with
// extras after the model (and replacing a built-in of the same name).
func TestRankingsBody(t *testing.T) {
	spec := BodySpec{API: Rankings, Model: "nv-rerank", Extra: []Field{{Key: "truncate", Value: json.RawMessage(`"END"`)}}}
	got := string(spec.Body(Prompt{Text: `what is "x"?`, Passages: []string{"x is a letter", "ünïcode"}, MaxTokens: 9}))
	want := `{"query":{"text":"what is \"x\"?"},"passages":[{"text":"x is a letter"},{"text":"ünïcode"}],"model":"nv-rerank","truncate":"END"}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if Rankings.DefaultPath("m", true) != "/v1/ranking" || !Rankings.Scores() || Rankings.Conversational() {
		t.Error("rankings: want path /v1/ranking, a scores API, not conversational")
	}
}

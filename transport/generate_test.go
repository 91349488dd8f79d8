package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func TestGenerateBodies(t *testing.T) {
	checkBodies(t, []bodyCase{
		{"tgi stream", BodySpec{API: TGI, Model: "ignored", Stream: true}, Prompt{Text: `a "b"`, MaxTokens: 8, MinTokens: 8},
			`{"inputs":"a \"b\"","parameters":{"max_new_tokens":8,"details":true},"stream":true}`},
		{"tgi whole no limit", BodySpec{API: TGI, Model: "m"}, Prompt{Text: "x"},
			`{"inputs":"x","parameters":{"details":true}}`},
		{"tgi extra into parameters, overriding", BodySpec{API: TGI, Stream: true, Extra: []Field{
			{"temperature", json.RawMessage("0.5")}, {"max_new_tokens", json.RawMessage("3")}}}, Prompt{Text: "x", MaxTokens: 8},
			`{"inputs":"x","parameters":{"details":true,"temperature":0.5,"max_new_tokens":3},"stream":true}`},
		{"kserve stream", BodySpec{API: KServe, Model: "ensemble", Stream: true}, Prompt{Text: "x", MaxTokens: 5, MinTokens: 5},
			`{"text_input":"x","max_tokens":5,"min_length":5,"stream":true}`},
		{"kserve whole", BodySpec{API: KServe, Model: "ensemble"}, Prompt{Text: "x"},
			`{"text_input":"x"}`},
		{"kserve extra merged, overriding", BodySpec{API: KServe, Stream: true, Extra: []Field{
			{"bad_words", json.RawMessage(`[""]`)}, {"stop_words", json.RawMessage(`["\n\n"]`)}, {"max_tokens", json.RawMessage("9")}}},
			Prompt{Text: "x", MaxTokens: 5},
			`{"text_input":"x","stream":true,"bad_words":[""],"stop_words":["\n\n"],"max_tokens":9}`},
	})
}

func TestGeneratePaths(t *testing.T) {
	for _, tc := range []struct {
		api       API
		model     string
		stream    bool
		base, url string
	}{
		{TGI, "m", true, "http://h:1", "http://h:1/generate_stream"},
		{TGI, "m", false, "http://h:1/", "http://h:1/generate"},
		{KServe, "ensemble", true, "http://h:8000", "http://h:8000/v2/models/ensemble/generate_stream"},
		{KServe, "a b/c", false, "http://h:8000", "http://h:8000/v2/models/a%20b%2Fc/generate"},
		{KServe, "m", true, "http://h:8000/v2", "http://h:8000/v2/models/m/generate_stream"},
	} {
		got, err := targetURL(Config{URL: tc.base, API: tc.api, Model: tc.model, Stream: tc.stream})
		if err != nil || got != tc.url {
			t.Errorf("%s at %s: %s, %v; want %s", tc.api, tc.base, got, err, tc.url)
		}
	}
	for _, name := range []string{"tgi", "kserve"} {
		if _, err := ParseAPI(name); err != nil {
			t.Error(err)
		}
	}
}

// Members come in any order: a TGI event whose token follows its
// generated_text still reads the token, not the repeated whole answer.
func TestGenerateDecoderOrder(t *testing.T) {
	cases := []struct {
		api      API
		in, text string
		finished bool
	}{
		{TGI, `{"generated_text":"ab","details":null,"token":{"special":false,"text":"b"}}`, "b", true},
		{TGI, `{"token":{"text":"</s>","special":true},"generated_text":null}`, "", false},
		{TGI, `{"details":{"generated_tokens":2},"generated_text":"whole"}`, "whole", true},
		{KServe, `{"text_output":"t\u00e9","model_name":"m"}`, "té", false},
		{KServe, `{"text_output":null}`, "", false},
	}
	for _, tc := range cases {
		d := decoder{api: tc.api}
		p, err := d.decode([]byte(tc.in))
		if err != nil || string(p.text) != tc.text || p.finished != tc.finished {
			t.Errorf("%s %s: text %q finished %v err %v; want %q %v", tc.api, tc.in, p.text, p.finished, err, tc.text, tc.finished)
		}
	}
}

// An error status's body gives the record its message in TGI's and
// Triton's layouts.
func TestGenerateErrorBodies(t *testing.T) {
	cases := []struct {
		api  API
		body string
		msg  string
	}{
		{TGI, `{"error":"Model is overloaded","error_type":"overloaded"}`, "overloaded: Model is overloaded"},
		{KServe, `{"error":"Request for unknown model: 'x' is not found"}`, "Request for unknown model: 'x' is not found"},
	}
	for _, tc := range cases {
		srv := newScripted(t, http.StatusTooManyRequests, func(http.ResponseWriter) []step { return []step{{0, tc.body}} })
		c, _ := newTestClient(t, Config{URL: srv.srv.URL, API: tc.api, Model: "m", Stream: true})
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err == nil || rec.Err.Class != metrics.ErrHTTP || rec.Err.Status != 429 || rec.Err.Message != tc.msg {
			t.Errorf("%s: failure %+v, want http 429 %q", tc.api, rec.Err, tc.msg)
		}
	}
}

// A KServe stream has no end sign, so its end is the body's: a chunked
// stream ended by its last chunk is complete, one cut before it is not.
func TestKServeStreamEnd(t *testing.T) {
	ev := "data: {\"text_output\":\"a\"}\n\n"
	framed := fmt.Sprintf("%x\r\n%s\r\n", len(ev), ev)
	for _, tc := range []struct {
		name   string
		script script
		ok     bool
	}{
		{"last chunk", send(chunked("text/event-stream", framed+"0\r\n\r\n")), true},
		{"cut before the last chunk", send(chunked("text/event-stream", framed)), false},
		{"cut mid-chunk", send(chunked("text/event-stream", fmt.Sprintf("%x\r\n%s", 4096, ev))), false},
	} {
		srv := startRaw(t, tc.script)
		c, _ := newTestClient(t, Config{URL: srv.url, API: KServe, Model: "m", Stream: true})
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if (rec.Err == nil) != tc.ok || len(rec.Chunks) != 1 || !tc.ok && rec.Err.Class != metrics.ErrReset {
			t.Errorf("%s: failure %+v with %d chunks, want ok=%v with 1", tc.name, rec.Err, len(rec.Chunks), tc.ok)
		}
	}
}

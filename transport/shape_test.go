package transport

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// vllmChunk is a chat stream's chunk as vLLM and the simulator send it.
func vllmChunk(body string) string {
	return `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1796520262,"model":"m",` +
		`"choices":[{"index":0,"delta":{"content":"` + body + `"},"logprobs":null,"finish_reason":null}]}`
}

// fresh decodes data with a decoder that has seen nothing.
func fresh(api API, data []byte) (piece, error) {
	d := decoder{api: api}
	p, err := d.decode(data)
	if err != nil {
		return piece{}, err
	}
	return *p, nil
}

// afterShape decodes data with a decoder that has decoded first before.
func afterShape(api API, first, data []byte) (piece, bool, error) {
	d := decoder{api: api}
	_, _ = d.decode(first)
	_, hit := d.shape.match(api, data)
	p, err := d.decode(data)
	if err != nil {
		return piece{}, hit, err
	}
	return *p, hit, nil
}

func samePiece(t *testing.T, what string, got piece, gotErr error, want piece, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, a fresh decoder's %v", what, gotErr, wantErr)
	}
	gotText, wantText := got.text, want.text
	got.text, want.text = nil, nil
	if !bytes.Equal(gotText, wantText) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %+v text %q, a fresh decoder's %+v text %q", what, got, gotText, want, wantText)
	}
}

// TestShapeReadsTheNextChunk: after one chunk, the next of the same shape
// is read without a scan, and gives what the scan gives; a chunk whose body
// has an escape, or any other change, is scanned.
func TestShapeReadsTheNextChunk(t *testing.T) {
	first := []byte(vllmChunk(" more"))
	for _, tc := range []struct {
		name string
		data string
		hit  bool
	}{
		{"the next token", vllmChunk(" these"), true},
		{"an empty body", vllmChunk(""), true},
		{"a long body", vllmChunk(strings.Repeat("abcdefgh", 40) + "é"), true},
		{"an escaped quote", vllmChunk(`say \"hi\"`), false},
		{"a newline escape", vllmChunk(`a\nb`), false},
		{"a raw control character (malformed)", vllmChunk("a\tb"), false},
		{"a body that ends the string early (malformed)", vllmChunk(`a"b`), false},
		{"the last chunk", strings.Replace(vllmChunk("x"), `"finish_reason":null`, `"finish_reason":"stop"`, 1), false},
		{"another request", strings.Replace(vllmChunk("x"), "chatcmpl-7", "chatcmpl-8", 1), false},
		{"usage after the text", strings.Replace(vllmChunk("x"), `]}`, `],"usage":{"prompt_tokens":3,"completion_tokens":9}}`, 1), false},
	} {
		data := []byte(tc.data)
		want, wantErr := fresh(Chat, data)
		got, hit, err := afterShape(Chat, first, data)
		if hit != tc.hit {
			t.Errorf("%s: read without a scan %v, want %v", tc.name, hit, tc.hit)
		}
		samePiece(t, tc.name, got, err, want, wantErr)
	}
}

// TestShapeKeepsThePieceBesidesTheText: what the remembered object said
// besides its text (usage, finish_reason) is what a chunk of its shape
// says, and a shape is the API's: another API's decoder scans.
func TestShapeKeepsThePieceBesidesTheText(t *testing.T) {
	withUsage := func(body string) []byte {
		return []byte(`{"choices":[{"delta":{"content":"` + body + `"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":9}}`)
	}
	got, hit, err := afterShape(Chat, withUsage("a"), withUsage("bc"))
	if !hit || err != nil || string(got.text) != "bc" || !got.finished || got.prompt != 3 || got.output != 9 {
		t.Fatalf("hit %v err %v piece %+v text %q, want the remembered usage and finish with text bc", hit, err, got, got.text)
	}
	d := decoder{api: Chat}
	_, _ = d.decode(withUsage("a"))
	if _, ok := d.shape.match(Completions, withUsage("bc")); ok {
		t.Fatal("a chat shape matched a completions object")
	}
	for _, api := range []API{Responses, Messages, TGI} {
		d := decoder{api: api}
		_, _ = d.decode([]byte(`{"type":"x","delta":{"text":"a"},"text":"a"}`))
		if d.shape.known {
			t.Errorf("%s: a shape was learnt, but its pieces are judged after the scan", api)
		}
	}
}

// FuzzShapeMatchesScan: whatever object a decoder saw before, the next
// decodes as a fresh decoder decodes it — for any object, and for the
// first object with its answer's body replaced by any bytes.
func FuzzShapeMatchesScan(f *testing.F) {
	f.Add(vllmChunk("a"), vllmChunk("b"), "c")
	f.Add(`{"choices":[{"text":"x"}]}`, `{"choices":[{"text":"y\""}]}`, `\u00e9`)
	f.Add(`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, `{}`, `"`)
	f.Add(`{"choices":[{"delta":{"reasoning_content":"","content":"a"}}]}`, `{"error":"e"}`, "\x00")
	f.Add(`{"text_output":"a"}`, `{"text_output":"b"}`, "zz")
	f.Fuzz(func(t *testing.T, first, next, body string) {
		for _, api := range []API{Chat, Completions, KServe} {
			want, wantErr := fresh(api, []byte(next))
			got, _, err := afterShape(api, []byte(first), []byte(next))
			samePiece(t, string(api)+" "+next, got, err, want, wantErr)

			d := decoder{api: api}
			if _, err := d.decode([]byte(first)); err != nil || !d.shape.known {
				continue
			}
			spliced := string(d.shape.around[:d.shape.split]) + body + string(d.shape.around[d.shape.split:])
			want, wantErr = fresh(api, []byte(spliced))
			got, _, err = afterShape(api, []byte(first), []byte(spliced))
			samePiece(t, string(api)+" "+spliced, got, err, want, wantErr)
		}
	})
}

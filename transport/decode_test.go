package transport

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecoderExtracts(t *testing.T) {
	cases := []struct {
		name, in  string
		text      string
		reasoning bool
		prompt    int64
		output    int64
		errMsg    string
		finished  bool
	}{
		{"chat delta", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`, "Hi", false, 0, 0, "", false},
		{"role only", `{"choices":[{"delta":{"role":"assistant","content":""}}]}`, "", false, 0, 0, "", false},
		{"null content", `{"choices":[{"delta":{"content":null}}]}`, "", false, 0, 0, "", false},
		{"finish only", `{"choices":[{"delta":{},"finish_reason":"stop"}]}`, "", false, 0, 0, "", true},
		{"usage only", `{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}`, "", false, 12, 34, "", false},
		{"completions", `{"object":"text_completion","choices":[{"text":" x","index":0}]}`, " x", false, 0, 0, "", false},
		{"message", `{"choices":[{"message":{"role":"assistant","content":"whole"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, "whole", false, 1, 2, "", false},
		{"reasoning", `{"choices":[{"delta":{"reasoning_content":"hmm"}}]}`, "hmm", true, 0, 0, "", false},
		{"reasoning alias", `{"choices":[{"delta":{"reasoning":"hmm"}}]}`, "hmm", true, 0, 0, "", false},
		{"both kinds", `{"choices":[{"delta":{"reasoning_content":"a","content":"b"}}]}`, "ab", false, 0, 0, "", false},
		{"escapes", `{"choices":[{"delta":{"content":"a\n\"b\"\u00e9\ud83d\ude00"}}]}`, "a\n\"b\"é😀", false, 0, 0, "", false},
		{"second choice ignored", `{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`, "a", false, 0, 0, "", false},
		{"nested noise", `{"x":[1,{"content":"no"}],"choices":[{"logprobs":{"content":[{"token":"t"}]},"delta":{"content":"ok"}}]}`, "ok", false, 0, 0, "", false},
		{"error object", `{"error":{"message":"overloaded","code":503}}`, "", false, 0, 0, "overloaded", false},
		{"error string", `{"error":"bad"}`, "", false, 0, 0, "bad", false},
		{"error null", `{"error":null,"choices":[{"text":"t"}]}`, "t", false, 0, 0, "", false},
		{"stop in message", `{"choices":[{"message":{"content":""},"finish_reason":"stop"}]}`, "", false, 0, 0, "", true},
		{"finish null", `{"choices":[{"delta":{"content":"x"},"finish_reason":null}]}`, "x", false, 0, 0, "", false},
		{"tool call delta", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}}]}`, `{"a":`, false, 0, 0, "", false},
		{"tool calls message", `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"1","function":{"name":"f","arguments":"x"}},{"function":{"arguments":"y"}}]},"finish_reason":"tool_calls"}]}`, "xy", false, 0, 0, "", true},
		{"whitespace", " { \"choices\" : [ { \"delta\" : { \"content\" : \"w\" } } ] } ", "w", false, 0, 0, "", false},
	}
	var d decoder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := d.decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(p.text) != tc.text || p.reasoning != tc.reasoning || p.prompt != tc.prompt || p.output != tc.output || p.errMsg != tc.errMsg || p.finished != tc.finished {
				t.Errorf("got text %q reasoning %v usage %d/%d err %q finished %v", p.text, p.reasoning, p.prompt, p.output, p.errMsg, p.finished)
			}
		})
	}
}

func TestDecoderRejectsMalformed(t *testing.T) {
	for _, in := range []string{
		``, `{`, `{"choices":[{"delta":{"content":"x"`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{"a":"\x"}`,
		`{"a":01}`, `{"a":1.}`, `{"a":tru}`, `{} {}`, `{"a":"` + "\x01" + `"}`, `{"a":[1 2]}`,
	} {
		if _, err := (&decoder{}).decode([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// The scanner must agree with encoding/json on what is valid JSON, and on
// the content it extracts from valid chat chunks.
func FuzzDecoder(f *testing.F) {
	f.Add(`{"choices":[{"delta":{"content":"a\u00e9"}}],"usage":{"prompt_tokens":3}}`)
	f.Add(`{"choices":[{"text":"x"}]}`)
	f.Add(`[1,2,{"a":null}]`)
	f.Add(`{"error":{"message":"m"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var d decoder
		p, err := d.decode([]byte(in))
		if valid := json.Valid([]byte(in)); valid != (err == nil) {
			t.Fatalf("%q: json.Valid=%v but scanner err=%v", in, valid, err)
		}
		if err != nil {
			return
		}
		var ref struct {
			Choices []struct {
				Delta *struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(in), &ref) != nil || len(ref.Choices) == 0 || ref.Choices[0].Delta == nil ||
			ref.Choices[0].Delta.Content == nil || ambiguous(in) {
			return
		}
		if want := *ref.Choices[0].Delta.Content; !p.reasoning && string(p.text) != want && validUTF8(want) {
			t.Fatalf("%q: content %q, encoding/json says %q", in, p.text, want)
		}
	})
}

// ambiguous skips inputs where the scanner and encoding/json legitimately
// differ: repeated keys (encoding/json keeps the last, the scanner appends),
// other text-bearing members the reference struct does not read, and keys
// spelt in another case ("Content"), which encoding/json matches and the
// scanner, reading what servers send, does not.
func ambiguous(s string) bool {
	lower := strings.ToLower(s)
	for _, k := range []string{"content", "choices", "delta", "text", "message", "reasoning", "\\"} {
		if strings.Count(lower, k) != strings.Count(s, k) {
			return true
		}
		if strings.Count(s, k) > 1 || (k != "content" && k != "choices" && k != "delta" && strings.Contains(s, k)) {
			return true
		}
	}
	return false
}

func validUTF8(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' {
			return false
		}
	}
	return true
}

// benchChunk is a vLLM chat chunk: the stream's chunks differ in their
// content alone.
func benchChunk(content string) []byte {
	return []byte(`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1732900000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"` + content + `"},"logprobs":null,"finish_reason":null}]}`)
}

// BenchmarkDecodeChunk is the scan of a chunk: the decoder forgets the
// last chunk's shape every time, as for a stream's first chunk.
func BenchmarkDecodeChunk(b *testing.B) {
	chunk := benchChunk(" world")
	var d decoder
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		d.shape.known = false
		if _, err := d.decode(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStreamChunk is a chunk in the middle of a stream, read
// by its shape (chunkShape).
func BenchmarkDecodeStreamChunk(b *testing.B) {
	chunks := [][]byte{benchChunk(" world"), benchChunk(" hello")}
	var d decoder
	b.SetBytes(int64(len(chunks[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := d.decode(chunks[i&1]); err != nil {
			b.Fatal(err)
		}
	}
}

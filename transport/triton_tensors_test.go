package transport

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Triton bodies are GenAI-Perf's inputs.json records, key for key.
func TestTritonBody(t *testing.T) {
	extra := []Field{{"temperature", json.RawMessage(`0.5`)}, {"stop_words", json.RawMessage(`["a","b"]`)}}
	cases := []struct {
		name string
		spec BodySpec
		p    Prompt
		want string
	}{
		{"tensorrtllm default limit", BodySpec{API: Triton, Model: "ensemble"}, Prompt{Text: "hi"},
			`{"model":"ensemble","text_input":["hi"],"max_tokens":[256],"exclude_input_in_output":[true]}`},
		{"tensorrtllm stream, fixed length, extra", BodySpec{API: Triton, Model: "ensemble", Stream: true, Extra: extra},
			Prompt{Text: "hi", MaxTokens: 9, MinTokens: 9},
			`{"model":"ensemble","text_input":["hi"],"max_tokens":[9],"exclude_input_in_output":[true],"stream":[true],"min_length":[9],"temperature":[0.5],"stop_words":["a","b"]}`},
		{"vllm", BodySpec{API: Triton, Model: "vllm_model", Stream: true, Backend: VLLM, Extra: extra[:1]},
			Prompt{Text: "hi", MaxTokens: 9, MinTokens: 9},
			`{"model":"vllm_model","text_input":["hi"],"exclude_input_in_output":[true],"stream":[true],"sampling_parameters":["{\"max_tokens\":\"9\",\"min_tokens\":\"9\",\"temperature\":0.5}"]}`},
		{"vllm no limit", BodySpec{API: Triton, Model: "v", Backend: VLLM}, Prompt{Text: "hi"},
			`{"model":"v","text_input":["hi"],"exclude_input_in_output":[true],"sampling_parameters":["{}"]}`},
		{"extra replaces a built-in", BodySpec{API: Triton, Model: "e", Extra: []Field{{"exclude_input_in_output", json.RawMessage(`false`)}}},
			Prompt{Text: "hi", MaxTokens: 2}, `{"model":"e","text_input":["hi"],"max_tokens":[2],"exclude_input_in_output":[false]}`},
	}
	for _, tc := range cases {
		if got := string(tc.spec.Body(tc.p)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// Tensors decode with the backend's shapes and Triton's raw layout.
func TestTritonRequestTensors(t *testing.T) {
	body := `{"model":"e","text_input":["héllo"],"temperature":[0.5],"random_seed":[7],"n":[3000000000],"flag":[false],"pair":["a","bc"]}`
	req, err := tritonRequest([]byte(body), TensorRTLLM, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, dtype string
		shape1      int64
		raw         []byte
	}{
		{"text_input", "BYTES", 1, append([]byte{6, 0, 0, 0}, "héllo"...)},
		{"temperature", "FP32", 1, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.5))},
		{"random_seed", "UINT64", 1, binary.LittleEndian.AppendUint64(nil, 7)},
		{"n", "INT64", 1, binary.LittleEndian.AppendUint64(nil, 3000000000)},
		{"flag", "BOOL", 1, []byte{0}},
		{"pair", "BYTES", 2, []byte{1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c'}},
	}
	if req.GetModelName() != "e" || len(req.GetInputs()) != len(want) {
		t.Fatalf("model %q, inputs %v", req.GetModelName(), req.GetInputs())
	}
	for i, w := range want {
		in := req.GetInputs()[i]
		if in.GetName() != w.name || in.GetDatatype() != w.dtype || len(in.GetShape()) != 2 || in.GetShape()[1] != w.shape1 {
			t.Errorf("input %d: %s %s %v, want %s %s [1 %d]", i, in.GetName(), in.GetDatatype(), in.GetShape(), w.name, w.dtype, w.shape1)
		}
		if got := req.GetRawInputContents()[i]; string(got) != string(w.raw) {
			t.Errorf("%s raw % x, want % x", w.name, got, w.raw)
		}
	}
	vllm, err := tritonRequest([]byte(`{"model":"v","text_input":["x"]}`), VLLM, true)
	if err != nil || len(vllm.GetInputs()[0].GetShape()) != 1 || vllm.GetInputs()[0].GetShape()[0] != 1 {
		t.Errorf("vllm shape %v (%v), want [1]", vllm.GetInputs(), err)
	}
}

// A body no tensor can hold is refused naming the input.
func TestTritonRequestRefuses(t *testing.T) {
	cases := map[string]string{
		`{"model":"e","text_input":"x"}`:            "input text_input: want a list of its elements",
		`{"model":"e","text_input":[["x"]]}`:        "input text_input: element 0: BYTES wants a string",
		`{"model":"e","max_tokens":[1.5]}`:          "input max_tokens: element 0: INT32 wants a whole number",
		`{"model":"e","bad":[]}`:                    "input bad: want at least one element",
		`{"model":"e","options":[{"a":1}]}`:         "input options: element 0: want a string, a number or true/false",
		`["not an object"]`:                         "want a JSON object of input tensors",
		`{"model":"e","random_seed":[-1]}`:          "input random_seed: element 0: UINT64 wants a whole number >= 0",
		`{"model":"e","stream":["yes"]}`:            "input stream: element 0: BOOL wants true or false",
		`{"model":"e","max_tokens":[99999999999]}`:  "fits in 32 bits",
		`{"model":1}`:                               "model: want a string",
		`{"model":"e","text_input":["x"]`:           "triton body",
		`{"model":"e","n":[1],"text_input":["x"]}x`: "",
	}
	for body, want := range cases {
		_, err := tritonRequest([]byte(body), TensorRTLLM, false)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v, want accepted (trailing bytes after the object are not read)", body, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// The address forms a triton endpoint takes, and the ones it refuses.
func TestParseTritonURL(t *testing.T) {
	ok := map[string]string{
		"localhost:8001":           "grpc://localhost:8001",
		"grpc://10.0.0.5:9001":     "grpc://10.0.0.5:9001",
		"grpcs://triton.example":   "grpcs://triton.example:8001",
		"grpc://[::1]:8001":        "grpc://[::1]:8001",
		"triton":                   "grpc://triton:8001",
		" grpc://127.0.0.1:8001/ ": "grpc://127.0.0.1:8001",
	}
	for in, want := range ok {
		got, err := ParseTritonURL(in)
		if err != nil || got.URL() != want {
			t.Errorf("%q: %v %v, want %s", in, got.URL(), err, want)
		}
	}
	bad := map[string]string{
		"http://localhost:8000":      `http(s) is Triton's HTTP API, which api="kserve" speaks`,
		"unix:///tmp/sock":           "scheme unix is not gRPC",
		"grpc://host:8001/v2/models": "gRPC has no path",
		"grpc://user:pw@host":        "credentials in the address",
		"grpc://":                    "no host",
	}
	for in, want := range bad {
		if _, err := ParseTritonURL(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// BenchmarkTritonRequestDecode measures what turning a pre-rendered
// body into its ModelInferRequest costs each request (a 550-word prompt,
// GenAI-Perf's default length).
func BenchmarkTritonRequestDecode(b *testing.B) {
	body := BodySpec{API: Triton, Model: "ensemble", Stream: true}.Body(Prompt{Text: strings.Repeat("word ", 550), MaxTokens: 256})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tritonRequest(body, TensorRTLLM, true); err != nil {
			b.Fatal(err)
		}
	}
}

// The decode cache tells bodies apart by where they lie and keeps them:
// each body gets its own request, decoded once.
func TestTritonRequestCache(t *testing.T) {
	var c requestCache
	a := []byte(`{"model":"a","text_input":["x"]}`)
	b := []byte(`{"model":"b","text_input":["x"]}`)
	ra, _ := c.get(a, TensorRTLLM, true)
	rb, _ := c.get(b, TensorRTLLM, true)
	again, _ := c.get(a, TensorRTLLM, true)
	if ra.GetModelName() != "a" || rb.GetModelName() != "b" || again != ra || c.n.Load() != 2 {
		t.Errorf("models %q %q, cached again %v, %d entries", ra.GetModelName(), rb.GetModelName(), again == ra, c.n.Load())
	}
	if _, err := c.get([]byte(`{"model":"c","text_input":"x"}`), TensorRTLLM, true); err == nil || c.n.Load() != 2 {
		t.Errorf("a bad body: %v, %d entries (not cached)", err, c.n.Load())
	}
}

package sim

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// The sim reads a request's tensors typed as well as raw (a client other
// than perf_analyzer may send contents), and the vLLM model's
// sampling_parameters with numbers or strings; what Triton refuses it
// refuses.
func TestTritonGenRequest(t *testing.T) {
	typed := func(name, dtype string, c *tritonpb.InferTensorContents) *tritonpb.ModelInferRequest_InferInputTensor {
		return &tritonpb.ModelInferRequest_InferInputTensor{Name: name, Datatype: dtype, Shape: []int64{1}, Contents: c}
	}
	req := &tritonpb.ModelInferRequest{ModelName: "m", Inputs: []*tritonpb.ModelInferRequest_InferInputTensor{
		typed("text_input", "BYTES", &tritonpb.InferTensorContents{BytesContents: [][]byte{[]byte("a b c d")}}),
		typed("max_tokens", "INT32", &tritonpb.InferTensorContents{IntContents: []int32{6}}),
		typed("stream", "BOOL", &tritonpb.InferTensorContents{BoolContents: []bool{true}}),
	}}
	g, err := tritonGenRequest(req, 99)
	if err != nil || g.model != "m" || g.promptTokens != 4 || g.outputTokens != 6 || !g.stream {
		t.Errorf("typed: %+v %v", g, err)
	}
	vllm := &tritonpb.ModelInferRequest{Inputs: []*tritonpb.ModelInferRequest_InferInputTensor{
		typed("text_input", "BYTES", &tritonpb.InferTensorContents{BytesContents: [][]byte{[]byte("x")}}),
		typed("sampling_parameters", "BYTES", &tritonpb.InferTensorContents{BytesContents: [][]byte{[]byte(`{"max_tokens": 3, "temperature": 0}`)}}),
	}}
	if g, err := tritonGenRequest(vllm, 99); err != nil || g.outputTokens != 3 || g.stream {
		t.Errorf("vllm numbers: %+v %v", g, err)
	}
	bad := map[string]*tritonpb.ModelInferRequest{
		"input 'text_input' is required": {},
		"input 'text_input' has datatype INT32, want BYTES": {Inputs: []*tritonpb.ModelInferRequest_InferInputTensor{
			typed("text_input", "INT32", &tritonpb.InferTensorContents{IntContents: []int32{1}})}},
		"max_tokens must be at least 1, got 0": {Inputs: []*tritonpb.ModelInferRequest_InferInputTensor{
			typed("text_input", "BYTES", &tritonpb.InferTensorContents{BytesContents: [][]byte{[]byte("x")}}),
			typed("max_tokens", "INT32", &tritonpb.InferTensorContents{IntContents: []int32{0}})}},
		"raw BYTES element cut short": {Inputs: []*tritonpb.ModelInferRequest_InferInputTensor{typed("text_input", "BYTES", nil)},
			RawInputContents: [][]byte{{9, 0, 0, 0, 'x'}}},
	}
	for want, r := range bad {
		if _, err := tritonGenRequest(r, 5); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}

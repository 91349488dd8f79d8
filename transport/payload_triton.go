package transport

import (
	"bytes"
	"strconv"
)

// The Triton backends a triton body is shaped for, GenAI-Perf's --backend
// values: the TensorRT-LLM backend's ensemble (tensorrtllm_backend,
// all_models/inflight_batcher_llm/ensemble) and the vLLM backend's model
// (vllm_backend, src/model.py).
const (
	TensorRTLLM = "tensorrtllm"
	VLLM        = "vllm"
)

// DefaultTritonMaxTokens is max_tokens of a TensorRT-LLM request whose
// entry sets no output length: the ensemble requires the input, and 256
// is what GenAI-Perf sends by default.
const DefaultTritonMaxTokens = 256

// tritonBody renders a triton request as GenAI-Perf writes it in
// inputs.json (inputs/converters/tensorrtllm_converter.py and
// vllm_converter.py): a flat object of the model name and one member per
// input tensor, each a list of the tensor's elements. The client turns it
// into a ModelInferRequest (see tritonRequest); inputs.json shows it as
// written.
//
// TensorRT-LLM: {"model", "text_input": [t], "max_tokens": [N],
// "exclude_input_in_output": [true], "stream": [true]?, "min_length": [N]?,
// extra...}. vLLM: {"model", "text_input": [t], "exclude_input_in_output":
// [true], "stream": [true]?, "sampling_parameters": ["{json}"]}, where the
// JSON string holds max_tokens and min_tokens as strings (as GenAI-Perf
// writes them) and every extra field, since the vLLM model takes its
// sampling options there, not as tensors. A TensorRT-LLM extra is one more
// input tensor: a scalar becomes a one-element list, a list is the
// tensor's elements as given.
func (s BodySpec) tritonBody(p Prompt) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	extra := s.Extra
	if s.Backend == VLLM {
		extra = nil // they go into sampling_parameters
	}
	w := &objectWriter{buf: &b, extra: extra}
	w.raw("model", jsonString(s.Model))
	w.raw("text_input", "["+jsonString(p.Text)+"]")
	if s.Backend != VLLM {
		w.raw("max_tokens", "["+strconv.Itoa(cmpOr(p.MaxTokens, DefaultTritonMaxTokens))+"]")
	}
	w.raw("exclude_input_in_output", "[true]")
	if s.Stream {
		w.raw("stream", "[true]")
	}
	if s.Backend == VLLM {
		w.raw("sampling_parameters", "["+jsonString(s.samplingParameters(p))+"]")
		b.WriteByte('}')
		return b.Bytes()
	}
	if p.MinTokens > 0 {
		w.raw("min_length", "["+strconv.Itoa(p.MinTokens)+"]")
	}
	for _, f := range s.Extra {
		v := string(f.Value)
		if len(v) == 0 || v[0] != '[' {
			v = "[" + v + "]"
		}
		w.field(f.Key, v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// samplingParameters is the vLLM model's sampling_parameters JSON.
func (s BodySpec) samplingParameters(p Prompt) string {
	var b bytes.Buffer
	b.WriteByte('{')
	w := &objectWriter{buf: &b, extra: s.Extra}
	if p.MaxTokens > 0 {
		w.raw("max_tokens", jsonString(strconv.Itoa(p.MaxTokens)))
	}
	if p.MinTokens > 0 {
		w.raw("min_tokens", jsonString(strconv.Itoa(p.MinTokens)))
	}
	for _, f := range s.Extra {
		w.field(f.Key, string(f.Value))
	}
	b.WriteByte('}')
	return b.String()
}

// cmpOr is n, or def when n is not positive.
func cmpOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

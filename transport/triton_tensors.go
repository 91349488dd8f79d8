package transport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// tritonDatatypes are the input types of the TensorRT-LLM ensemble
// (tensorrtllm_backend all_models/inflight_batcher_llm/ensemble/config.pbtxt)
// and of the vLLM model, which a server refuses a tensor of any other type
// for; an input not named here takes its type from its JSON values.
var tritonDatatypes = map[string]string{
	"text_input": "BYTES", "sampling_parameters": "BYTES", "bad_words": "BYTES", "stop_words": "BYTES",
	"max_tokens": "INT32", "min_length": "INT32", "end_id": "INT32", "pad_id": "INT32", "top_k": "INT32",
	"beam_width": "INT32", "num_return_sequences": "INT32",
	"top_p": "FP32", "temperature": "FP32", "length_penalty": "FP32", "repetition_penalty": "FP32",
	"presence_penalty": "FP32", "frequency_penalty": "FP32",
	"random_seed": "UINT64",
	"stream":      "BOOL", "exclude_input_in_output": "BOOL", "return_log_probs": "BOOL",
	"return_context_logits": "BOOL", "return_generation_logits": "BOOL",
}

// tritonOutput is the output tensor both backends answer in, the only one
// asked for, so a response carries no tensor the client would discard.
const tritonOutput = "text_output"

// finalResponse and emptyFinalResponse are Triton's response and request
// parameters of a decoupled model's stream: the last response of a
// request says triton_final_response, and asking for an empty final
// response makes the server send one even when the model's last answer
// went out without the flag, so the end is always explicit.
const (
	finalResponse      = "triton_final_response"
	emptyFinalResponse = "triton_enable_empty_final_response"
)

// tritonRequest decodes a triton body (see tritonBody) into the
// ModelInferRequest it stands for: "model" names the model, every other
// member is an input tensor of its listed elements, sent raw
// (raw_input_contents, as perf_analyzer sends them). The TensorRT-LLM
// ensemble batches, so its tensors are [1, n]; the vLLM model does not,
// so its are [n]. A streamed request asks for the explicit final response.
func tritonRequest(body []byte, backend string, stream bool) (*tritonpb.ModelInferRequest, error) {
	req := &tritonpb.ModelInferRequest{Outputs: []*tritonpb.ModelInferRequest_InferRequestedOutputTensor{{Name: tritonOutput}}}
	if stream {
		req.Parameters = map[string]*tritonpb.InferParameter{
			emptyFinalResponse: {ParameterChoice: &tritonpb.InferParameter_BoolParam{BoolParam: true}},
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("triton body: want a JSON object of input tensors")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("triton body: %w", err)
		}
		name, _ := key.(string)
		if name == "model" {
			if err := dec.Decode(&req.ModelName); err != nil {
				return nil, fmt.Errorf("triton body: model: want a string: %w", err)
			}
			continue
		}
		var elems []json.RawMessage
		if err := dec.Decode(&elems); err != nil {
			return nil, fmt.Errorf("triton body: input %s: want a list of its elements: %w", name, err)
		}
		tensor, raw, err := tritonTensor(name, elems, backend)
		if err != nil {
			return nil, fmt.Errorf("triton body: input %s: %w", name, err)
		}
		req.Inputs = append(req.Inputs, tensor)
		req.RawInputContents = append(req.RawInputContents, raw)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, errors.New("triton body: the object is not closed")
	}
	return req, nil
}

// tritonTensor is one input tensor and its raw contents: the elements in
// row-major order, BYTES each as a 4-byte little-endian length and the
// bytes, numbers little-endian, BOOL one byte each (Triton's raw layout).
func tritonTensor(name string, elems []json.RawMessage, backend string) (*tritonpb.ModelInferRequest_InferInputTensor, []byte, error) {
	if len(elems) == 0 {
		return nil, nil, errors.New("want at least one element")
	}
	dtype, ok := tritonDatatypes[name]
	if !ok {
		dtype = jsonDatatype(elems[0])
	}
	if dtype == "" {
		return nil, nil, fmt.Errorf("element 0: want a string, a number or true/false, got %s", elems[0])
	}
	var raw []byte
	for i, e := range elems {
		var err error
		if raw, err = appendElement(raw, dtype, e); err != nil {
			return nil, nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	shape := []int64{int64(len(elems))}
	if backend != VLLM {
		shape = []int64{1, int64(len(elems))}
	}
	return &tritonpb.ModelInferRequest_InferInputTensor{Name: name, Datatype: dtype, Shape: shape}, raw, nil
}

// jsonDatatype is the type of a tensor known by its values only: text is
// BYTES, true/false BOOL, a whole number INT32 (INT64 when it does not
// fit), any other number FP32; "" for a value no element can be.
func jsonDatatype(v json.RawMessage) string {
	switch {
	case len(v) == 0 || v[0] == '{' || v[0] == '[' || v[0] == 'n':
		return "" // an object, a list or null: no tensor element
	case v[0] == '"':
		return "BYTES"
	case v[0] == 't' || v[0] == 'f':
		return "BOOL"
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	switch {
	case err != nil:
		return "FP32"
	case n < math.MinInt32 || n > math.MaxInt32:
		return "INT64"
	}
	return "INT32"
}

// appendElement appends one element of a tensor of type dtype.
func appendElement(raw []byte, dtype string, v json.RawMessage) ([]byte, error) {
	switch dtype {
	case "BYTES":
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("BYTES wants a string, got %s", v)
		}
		raw = binary.LittleEndian.AppendUint32(raw, uint32(len(s)))
		return append(raw, s...), nil
	case "BOOL":
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return nil, fmt.Errorf("BOOL wants true or false, got %s", v)
		}
		if b {
			return append(raw, 1), nil
		}
		return append(raw, 0), nil
	case "FP32", "FP64":
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s wants a number, got %s", dtype, v)
		}
		if dtype == "FP64" {
			return binary.LittleEndian.AppendUint64(raw, math.Float64bits(f)), nil
		}
		return binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(f))), nil
	}
	return appendInteger(raw, dtype, v)
}

// appendInteger appends an INT32, INT64 or UINT64 element.
func appendInteger(raw []byte, dtype string, v json.RawMessage) ([]byte, error) {
	switch dtype {
	case "INT32":
		n, err := strconv.ParseInt(string(v), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("INT32 wants a whole number that fits in 32 bits, got %s", v)
		}
		return binary.LittleEndian.AppendUint32(raw, uint32(int32(n))), nil
	case "INT64":
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("INT64 wants a whole number, got %s", v)
		}
		return binary.LittleEndian.AppendUint64(raw, uint64(n)), nil
	case "UINT64":
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("UINT64 wants a whole number >= 0, got %s", v)
		}
		return binary.LittleEndian.AppendUint64(raw, n), nil
	}
	return nil, fmt.Errorf("datatype %s is not one llmbench sends", dtype)
}

// CheckTritonBody reports whether a triton body decodes into a request,
// so a scenario's extra fields are judged when it loads.
func CheckTritonBody(body []byte, backend string) error {
	_, err := tritonRequest(body, backend, false)
	return err
}

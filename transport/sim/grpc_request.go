package sim

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// tritonInputs indexes a ModelInferRequest's input tensors by name, each
// with its raw contents when the client sent them raw.
type tritonInputs struct {
	r     *tritonpb.ModelInferRequest
	index map[string]int
}

func newTritonInputs(r *tritonpb.ModelInferRequest) tritonInputs {
	in := tritonInputs{r: r, index: make(map[string]int, len(r.GetInputs()))}
	for i, t := range r.GetInputs() {
		in.index[t.GetName()] = i
	}
	return in
}

// raw is input i's raw contents; ok is false when it came typed.
func (in tritonInputs) raw(i int) (raw []byte, ok bool) {
	if raws := in.r.GetRawInputContents(); i < len(raws) {
		return raws[i], true
	}
	return nil, false
}

// text is the first element of a BYTES input; ok is false when absent.
func (in tritonInputs) text(name string) (s string, ok bool, err error) {
	i, ok := in.index[name]
	if !ok {
		return "", false, nil
	}
	if t := in.r.GetInputs()[i]; t.GetDatatype() != "BYTES" {
		return "", true, fmt.Errorf("input '%s' has datatype %s, want BYTES", name, t.GetDatatype())
	}
	raw, isRaw := in.raw(i)
	if !isRaw {
		b := in.r.GetInputs()[i].GetContents().GetBytesContents()
		if len(b) == 0 {
			return "", true, fmt.Errorf("input '%s' has no element", name)
		}
		return string(b[0]), true, nil
	}
	if len(raw) < 4 || uint64(binary.LittleEndian.Uint32(raw)) > uint64(len(raw)-4) {
		return "", true, fmt.Errorf("input '%s': raw BYTES element cut short", name)
	}
	return string(raw[4 : 4+binary.LittleEndian.Uint32(raw)]), true, nil
}

// integer is the first element of an INT32 input; nil when absent.
func (in tritonInputs) integer(name string) (*int, error) {
	i, ok := in.index[name]
	if !ok {
		return nil, nil
	}
	if t := in.r.GetInputs()[i]; t.GetDatatype() != "INT32" {
		return nil, fmt.Errorf("input '%s' has datatype %s, want INT32", name, t.GetDatatype())
	}
	var n int
	raw, isRaw := in.raw(i)
	switch typed := in.r.GetInputs()[i].GetContents().GetIntContents(); {
	case isRaw && len(raw) >= 4:
		n = int(int32(binary.LittleEndian.Uint32(raw)))
	case !isRaw && len(typed) > 0:
		n = int(typed[0])
	default:
		return nil, fmt.Errorf("input '%s' has no element", name)
	}
	return &n, nil
}

// boolean is the first element of a BOOL input; false when absent.
func (in tritonInputs) boolean(name string) (bool, error) {
	i, ok := in.index[name]
	if !ok {
		return false, nil
	}
	if t := in.r.GetInputs()[i]; t.GetDatatype() != "BOOL" {
		return false, fmt.Errorf("input '%s' has datatype %s, want BOOL", name, t.GetDatatype())
	}
	raw, isRaw := in.raw(i)
	switch typed := in.r.GetInputs()[i].GetContents().GetBoolContents(); {
	case isRaw && len(raw) >= 1:
		return raw[0] != 0, nil
	case !isRaw && len(typed) > 0:
		return typed[0], nil
	}
	return false, fmt.Errorf("input '%s' has no element", name)
}

// tritonGenRequest decodes a request to the TensorRT-LLM ensemble or the
// vLLM model: the prompt is text_input, streaming the stream input, and
// the output limit max_tokens (TensorRT-LLM) or sampling_parameters'
// max_tokens (vLLM, a JSON string whose numbers may be strings, as
// GenAI-Perf writes them). Its errors are what Triton would refuse.
func tritonGenRequest(r *tritonpb.ModelInferRequest, defaultOutput int) (genRequest, error) {
	g := genRequest{api: apiTriton, model: r.GetModelName()}
	in := newTritonInputs(r)
	text, ok, err := in.text("text_input")
	switch {
	case err != nil:
		return g, err
	case !ok:
		return g, errors.New("input 'text_input' is required but missing")
	}
	g.promptTokens = countWords(text)
	if g.stream, err = in.boolean("stream"); err != nil {
		return g, err
	}
	limit, err := in.integer("max_tokens")
	if err != nil {
		return g, err
	}
	if limit == nil {
		if limit, err = samplingMaxTokens(in); err != nil {
			return g, err
		}
	}
	g.outputTokens, err = limitOrDefault("max_tokens", limit, defaultOutput)
	return g, err
}

// samplingMaxTokens is max_tokens of the vLLM model's sampling_parameters.
func samplingMaxTokens(in tritonInputs) (*int, error) {
	params, ok, err := in.text("sampling_parameters")
	if err != nil || !ok {
		return nil, err
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		return nil, fmt.Errorf("input 'sampling_parameters' is not a JSON object: %v", err)
	}
	raw, ok := p["max_tokens"]
	if !ok {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("sampling_parameters max_tokens: want a whole number, got %s", raw)
	}
	return &n, nil
}

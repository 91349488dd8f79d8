package genaiperf

import (
	"github.com/llmbench/llmbench/metrics"
)

// tritonInputs is a Triton request's request_inputs as perf_analyzer
// writes them: each input tensor by name, a one-element tensor as its
// element ("text_input": "...", "max_tokens": 256), a longer one as its
// list; the model name is not a tensor and is left out. A body that does
// not parse is kept whole as "payload".
func tritonInputs(body []byte) *object {
	parsed, err := parseOrdered(body)
	tensors, ok := parsed.(*object)
	if err != nil || !ok {
		return (&object{}).set("payload", string(body))
	}
	out := &object{}
	for i, key := range tensors.keys {
		value := tensors.vals[i]
		if key == "model" {
			continue
		}
		if list, ok := value.([]any); ok && len(list) == 1 {
			value = list[0]
		}
		out.set(key, value)
	}
	return out
}

// tritonResponses are a Triton request's responses as perf_analyzer
// records them, one {"text_output": piece} per content chunk (a whole
// answer's text when not streamed) at the chunk's arrival.
func tritonResponses(_ *Run, rec *metrics.Record) (stamps, outputs []any) {
	stamps, outputs = []any{}, []any{}
	for i, t := range rec.Chunks {
		stamps = append(stamps, t)
		outputs = append(outputs, (&object{}).set("text_output", chunkText(rec, i)))
	}
	return stamps, outputs
}

package genaiperf

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

package genaiperf

import (
	"fmt"
	"io"
)

// WriteInputs writes inputs.json as GenAI-Perf does (json.dumps(indent=2)):
// {"data": [{"payload": [<body>]}, ...]}, one record per dataset entry, so a
// run can be reproduced and perf_analyzer-style tools can replay it.
// payloads are the request bodies as sent, indexed by dataset entry; each
// is re-indented with its key order preserved and numbers printed as
// Python would (integers verbatim, floats by repr).
func WriteInputs(w io.Writer, payloads [][]byte) error {
	return writeInputs(w, payloads, false)
}

// WriteRunInputs is WriteInputs for the run's service kind: a Triton
// run's records are its bodies themselves, {"model", "text_input": [...],
// ...} with no "payload" wrapper, as GenAI-Perf's Triton converters write
// them.
func WriteRunInputs(w io.Writer, r *Run, payloads [][]byte) error {
	return writeInputs(w, payloads, r.isTriton())
}

func writeInputs(w io.Writer, payloads [][]byte, bare bool) error {
	data := make([]any, 0, len(payloads))
	for i, p := range payloads {
		body, err := parseOrdered(p)
		if err != nil {
			return fmt.Errorf("genaiperf: payload %d is not valid JSON: %w", i, err)
		}
		if bare {
			data = append(data, body)
			continue
		}
		data = append(data, (&object{}).set("payload", []any{body}))
	}
	b, err := marshal((&object{}).set("data", data), pythonIndent)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

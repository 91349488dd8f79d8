package genaiperf

import (
	"bytes"
	"testing"
)

// TestWriteInputs: bodies keep their key order, floats print as Python
// floats and non-ASCII as \u escapes, as GenAI-Perf's json.dumps(indent=2).
func TestWriteInputs(t *testing.T) {
	payloads := [][]byte{
		[]byte(`{"model":"m","messages":[{"role":"user","content":"héllo 😀"}],"stream":true,"max_tokens":100,"temperature":0.7,"ignore_eos":true}`),
		[]byte(`{"model":"m","prompt":["a\nb"],"top_p":1e-5,"stop":null,"nested":{"z":1,"a":[]}}`),
	}
	var b bytes.Buffer
	if err := WriteInputs(&b, payloads); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "inputs.json", b.Bytes())

	b.Reset()
	if err := WriteInputs(&b, nil); err != nil || b.String() != "{\n  \"data\": []\n}" {
		t.Errorf("empty inputs: %q %v", b.String(), err)
	}
	if err := WriteInputs(&b, [][]byte{[]byte(`{"a":`)}); err == nil {
		t.Error("want an error for a body that is not JSON")
	}
}

package genaiperf

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseOrdered: the Python-ordered JSON reader (request bodies, with
// their --extra-inputs, re-indented for inputs.json) accepts exactly the
// valid JSON documents, and writes each back, in both styles, as JSON
// that holds the same values (but for numbers beyond float64, which it
// writes as Python does: Infinity).
func FuzzParseOrdered(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2,"b":3,"x":1e5,"y":-0,"z":12345678901234567890123,"w":1.0E+2}`,
		`{"messages":[{"role":"user","content":"hi \u00e9"}],"stream":true,"max_tokens":null}`, `[1,]`, `{"a":1} x`, `1e400`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseOrdered(data)
		if valid := json.Valid(data); (err == nil) != valid {
			t.Fatalf("parseOrdered(%q): %v, but json.Valid is %v", data, err, valid)
		}
		if err != nil {
			return
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			return // a number beyond float64 (1e400): written as Python's Infinity, on purpose
		}
		for _, style := range []jsonStyle{pythonIndent, rapidCompact} {
			out, err := marshal(v, style)
			if err != nil {
				t.Fatalf("style %d: %v", style, err)
			}
			var got any
			if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("style %d: %q written as %s (%v), which reads as %v, want %v", style, data, out, err, got, want)
			}
		}
	})
}

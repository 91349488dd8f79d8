package gpflags

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// ParseExtraInputs reads GenAI-Perf's `--extra-inputs name:value` pairs with
// its coercion rules: true/false become booleans, all digits an integer,
// digits with one dot a float, anything else a string (so "-1" stays a
// string); a bare name is null and a JSON object is merged in whole.
func ParseExtraInputs(specs []string) ([]transport.Field, error) {
	var fields []transport.Field
	seen := map[string]bool{}
	add := func(k string, v json.RawMessage) error {
		if seen[k] {
			return failure.Inputf("--extra-inputs: %q given twice", k)
		}
		seen[k] = true
		fields = append(fields, transport.Field{Key: k, Value: v})
		return nil
	}
	for _, spec := range specs {
		if strings.HasPrefix(strings.TrimSpace(spec), "{") {
			if err := mergeObject(spec, add); err != nil {
				return nil, err
			}
			continue
		}
		name, value, ok := strings.Cut(spec, ":")
		if strings.TrimSpace(name) == "" {
			return nil, failure.Inputf("--extra-inputs: got %q, want name:value with a name", spec)
		}
		raw := json.RawMessage("null")
		if ok {
			if raw = coerce(value); raw == nil {
				return nil, failure.Inputf("--extra-inputs: %s: %.40q is too large for a float (JSON has no infinity)", name, value)
			}
		}
		if err := add(name, raw); err != nil {
			return nil, err
		}
	}
	return fields, nil
}

// coerce is v as GenAI-Perf types it, or nil for a float out of range.
func coerce(v string) json.RawMessage {
	switch {
	case v == "true" || v == "false":
		return json.RawMessage(v)
	case isDigits(v):
		return json.RawMessage(strings.TrimLeft(v, "0") + zeroIfEmpty(v))
	case strings.Count(v, ".") == 1 && isDigits(strings.Replace(v, ".", "", 1)):
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0" // Python's float repr keeps the point
		}
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(v)
	return b
}

func zeroIfEmpty(v string) string {
	if strings.TrimLeft(v, "0") == "" {
		return "0"
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mergeObject adds every member of a JSON object, in order.
func mergeObject(spec string, add func(string, json.RawMessage) error) error {
	dec := json.NewDecoder(strings.NewReader(spec))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return failure.Inputf("--extra-inputs: %q is not a JSON object", spec)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return failure.Inputf("--extra-inputs: %q is not a JSON object: %v", spec, err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return failure.Inputf("--extra-inputs: %q is not a JSON object: %v", spec, err)
		}
		if err := add(tok.(string), v); err != nil {
			return err
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || dec.More() {
		return failure.Inputf("--extra-inputs: %q is not a JSON object", spec)
	}
	return nil
}

// ParseHeaders reads `--header "Name: Value"` flags, each checked by
// runtime.CheckHeader (a line break would add headers to every request).
func ParseHeaders(specs []string) ([]transport.Header, error) {
	headers := make([]transport.Header, 0, len(specs))
	for _, spec := range specs {
		name, value, ok := strings.Cut(spec, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return nil, failure.Inputf("--header: got %q, want Name:Value", headerShown(spec))
		}
		if err := plan.CheckHeader(name, value); err != nil {
			return nil, failure.Inputf("--header: got %q: %w", headerShown(spec), err)
		}
		if err := transport.CheckReservedHeader(name); err != nil {
			return nil, failure.Inputf("--header: %w", err)
		}
		headers = append(headers, transport.Header{Name: name, Value: value})
	}
	return headers, nil
}

// headerShown is a header flag as an error may show it: the name only,
// since the value may be a credential.
func headerShown(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name + ": <redacted>"
}

// withAPIKey adds --api-key as a bearer token, or as x-api-key for the
// Messages API, which is how Anthropic takes it; the same header given
// with -H as well would make the request ambiguous, so it is refused.
func withAPIKey(headers []transport.Header, key string, api transport.API) ([]transport.Header, error) {
	if key == "" {
		return headers, nil
	}
	if strings.ContainsAny(key, " \t\r\n") {
		return nil, failure.Inputf("--api-key: got a key containing white space, want the key alone (no \"Bearer \" prefix)")
	}
	name, value := "Authorization", "Bearer "+key
	if api == transport.Messages {
		name, value = "x-api-key", key
	}
	for _, h := range headers {
		if strings.EqualFold(h.Name, name) {
			return nil, failure.Inputf("--api-key and -H %s both set the %s header; give one", name, name)
		}
	}
	return append(headers, transport.Header{Name: name, Value: value}), nil
}

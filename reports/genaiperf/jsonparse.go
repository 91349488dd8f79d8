package genaiperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseOrdered decodes one JSON document into the ordered value tree of
// pyjson.go, the way Python's json.loads would hold it: object keys keep
// their order (a repeated key keeps its first position and its last value),
// integers stay integers and every other number becomes a float. Request
// bodies are re-indented through it for inputs.json, which GenAI-Perf
// writes from Python dicts.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("genaiperf: trailing data after JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return parseObject(dec)
		}
		if t == '[' {
			return parseArray(dec)
		}
		return nil, fmt.Errorf("genaiperf: unexpected %q in JSON", t)
	case json.Number:
		return numberValue(t)
	default: // string, bool, nil
		return t, nil
	}
}

func parseObject(dec *json.Decoder) (any, error) {
	o := &object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	_, err := dec.Token() // '}'
	return o, err
}

func parseArray(dec *json.Decoder) (any, error) {
	a := []any{}
	for dec.More() {
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	_, err := dec.Token() // ']'
	return a, err
}

// numberValue keeps integer literals verbatim (Python ints are unbounded)
// and parses anything with a fraction or exponent as a float, which
// json.dumps then prints by repr ("1e5" → 100000.0). An out-of-range float
// becomes ±Infinity or 0.0, as Python's float() gives.
func numberValue(n json.Number) (any, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			s = "0"
		}
		return intLit(s), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, err
	}
	return f, nil
}

package builtins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/transport"
)

// jsonFields turns endpoint(extra={...}) into the body fields merged into
// every request, in the order written, each value encoded once now so a
// value JSON cannot hold (a function, NaN) is a load error.
func jsonFields(d *starlark.Dict) ([]transport.Field, error) {
	if d == nil {
		return nil, nil
	}
	var fields []transport.Field
	for _, kv := range d.Items() {
		k, ok := kv[0].(starlark.String)
		if !ok {
			return nil, fmt.Errorf("got %s key, want string", kv[0].Type())
		}
		var buf bytes.Buffer
		if err := writeJSON(&buf, kv[1], 0); err != nil {
			return nil, fmt.Errorf("key %s: %v", k, err)
		}
		fields = append(fields, transport.Field{Key: string(k), Value: json.RawMessage(buf.Bytes())})
	}
	return fields, nil
}

// writeJSON encodes the JSON subset of Starlark values: None, bools,
// numbers, strings, lists, tuples and string-keyed dicts.
func writeJSON(buf *bytes.Buffer, v starlark.Value, depth int) error {
	if depth > 64 {
		return fmt.Errorf("nested too deeply")
	}
	switch v := v.(type) {
	case starlark.NoneType:
		buf.WriteString("null")
	case starlark.Bool:
		buf.WriteString(strconv.FormatBool(bool(v)))
	case starlark.Int:
		buf.WriteString(v.String())
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("got %s, which JSON cannot hold", v)
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case starlark.String:
		b, _ := json.Marshal(string(v))
		buf.Write(b)
	case *starlark.List, starlark.Tuple:
		return writeJSONArray(buf, v.(starlark.Indexable), depth)
	case *starlark.Dict:
		return writeJSONObject(buf, v, depth)
	default:
		return fmt.Errorf("got %s, want a JSON value (None, bool, number, string, list or dict)", v.Type())
	}
	return nil
}

func writeJSONArray(buf *bytes.Buffer, seq starlark.Indexable, depth int) error {
	buf.WriteByte('[')
	for i := range seq.Len() {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeJSON(buf, seq.Index(i), depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func writeJSONObject(buf *bytes.Buffer, d *starlark.Dict, depth int) error {
	buf.WriteByte('{')
	for i, kv := range d.Items() {
		k, ok := kv[0].(starlark.String)
		if !ok {
			return fmt.Errorf("got %s key, want string", kv[0].Type())
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		b, _ := json.Marshal(string(k))
		buf.Write(b)
		buf.WriteByte(':')
		if err := writeJSON(buf, kv[1], depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

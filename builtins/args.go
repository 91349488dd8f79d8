package builtins

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// The argument types below implement starlark.Unpacker, so builtins name
// a parameter's domain type once in their unpack() call and get
// UnpackArgs' message shape for free: "endpoint: for parameter timeout:
// got "10 minutes", want a duration such as "500ms" or "10m"".

// duration is a length of time written as a Go duration string ("500ms",
// "1m30s") or a number of seconds; never negative.
type duration time.Duration

func (d *duration) Unpack(v starlark.Value) error {
	var out time.Duration
	switch v := v.(type) {
	case starlark.String:
		parsed, err := time.ParseDuration(string(v))
		if err != nil {
			return fmt.Errorf(`got %s, want a duration such as "500ms" or "10m"`, v)
		}
		out = parsed
	case starlark.Int, starlark.Float:
		secs, _ := starlark.AsFloat(v)
		if math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > 1e9 {
			return fmt.Errorf("got %s, want a number of seconds", v)
		}
		out = time.Duration(math.Round(secs * 1e9))
	default:
		return fmt.Errorf("got %s, want a duration string or a number of seconds", v.Type())
	}
	if out < 0 {
		return fmt.Errorf("got %s, want a duration >= 0", v)
	}
	*d = duration(out)
	return nil
}

// number is an int or a float, as a float: Starlark's *float64 unpacking
// refuses ints, and nobody should have to write rate(10.0).
type number float64

func (n *number) Unpack(v starlark.Value) error {
	switch v.(type) {
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("got %s, want a finite number", v)
		}
		*n = number(f)
		return nil
	}
	return fmt.Errorf("got %s, want float or int", v.Type())
}

// ratio is a fraction written as a percentage string ("5%") or a plain
// number (0.05).
type ratio float64

func (r *ratio) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.String:
		s := strings.TrimSpace(string(v))
		pct, ok := strings.CutSuffix(s, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if !ok || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf(`got %s, want a percentage such as "5%%"`, v)
		}
		*r = ratio(f / 100)
		return nil
	case starlark.Int, starlark.Float:
		var n number
		if err := n.Unpack(v); err != nil {
			return err
		}
		*r = ratio(n)
		return nil
	}
	return fmt.Errorf(`got %s, want a percentage such as "5%%" or a ratio such as 0.05`, v.Type())
}

// choiceOf is a string restricted to a few values.
type choiceOf struct {
	value   string
	allowed []string
}

func oneOf(def string, allowed ...string) choiceOf { return choiceOf{value: def, allowed: allowed} }

func (c *choiceOf) Unpack(v starlark.Value) error {
	s, ok := v.(starlark.String)
	if !ok {
		return fmt.Errorf("got %s, want string", v.Type())
	}
	if indexOf(c.allowed, string(s)) < 0 {
		return fmt.Errorf("got %s, want %s", s, orList(c.allowed))
	}
	c.value = string(s)
	return nil
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// stringList is a list or tuple of strings.
type stringList []string

func (l *stringList) Unpack(v starlark.Value) error {
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr {
		return fmt.Errorf("got %s, want list of strings", v.Type())
	}
	out := make([]string, seq.Len())
	for i := range out {
		s, ok := seq.Index(i).(starlark.String)
		if !ok {
			return fmt.Errorf("at index %d: got %s, want string", i, seq.Index(i).Type())
		}
		out[i] = string(s)
	}
	*l = out
	return nil
}

// stringMap is a dict from string to string, in insertion order.
type stringMap struct{ keys, values []string }

func (m *stringMap) Unpack(v starlark.Value) error {
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("got %s, want dict", v.Type())
	}
	var out stringMap
	for _, kv := range d.Items() {
		k, ok := kv[0].(starlark.String)
		if !ok {
			return fmt.Errorf("got %s key, want string", kv[0].Type())
		}
		val, ok := kv[1].(starlark.String)
		if !ok {
			return fmt.Errorf("got %s for key %s, want string", kv[1].Type(), k)
		}
		out.keys = append(out.keys, string(k))
		out.values = append(out.values, string(val))
	}
	*m = out
	return nil
}

// numberList is a list or tuple of numbers.
type numberList []float64

func (l *numberList) Unpack(v starlark.Value) error {
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr {
		return fmt.Errorf("got %s, want list of numbers", v.Type())
	}
	out := make([]float64, seq.Len())
	for i := range out {
		var n number
		if err := n.Unpack(seq.Index(i)); err != nil {
			return fmt.Errorf("at index %d: %w", i, err)
		}
		out[i] = float64(n)
	}
	*l = out
	return nil
}

package genaiperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// object is a JSON object that keeps its keys in insertion order, as Python
// dicts do: GenAI-Perf's readers and diff-based regression checks see keys
// in GenAI-Perf's order, which encoding/json's maps cannot give.
//
// Values held by an object or an array ([]any) are: *object, []any,
// string, float64 (a Python float: printed with repr), int or int64 (a
// Python int), intLit (an integer literal kept verbatim), bool, nil, and
// json.RawMessage (llmbench's own blocks, re-indented in place).
type object struct {
	keys []string
	vals []any
}

// set adds key, or replaces its value in place when it exists (a Python
// dict keeps the first position of a key), and returns o for chaining.
// get is the value at key, nil when there is none.
func (o *object) get(key string) any {
	if i := slices.Index(o.keys, key); i >= 0 {
		return o.vals[i]
	}
	return nil
}

func (o *object) set(key string, v any) *object {
	for i, k := range o.keys {
		if k == key {
			o.vals[i] = v
			return o
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	return o
}

// intLit is an integer literal taken from input JSON, kept verbatim so
// integers of any size survive a re-indent unchanged.
type intLit string

// jsonStyle selects whose serializer is imitated.
type jsonStyle int

const (
	// pythonIndent imitates json.dumps(v, indent=2): ", "-free lines,
	// ": " after keys, ensure_ascii escaping, floats by repr.
	pythonIndent jsonStyle = iota
	// rapidCompact imitates rapidjson's Writer (perf_analyzer): no
	// whitespace, UTF-8 written verbatim, floats by Grisu.
	rapidCompact
)

// encoder appends JSON text for a value tree to buf.
type encoder struct {
	buf   []byte
	style jsonStyle
	err   error
}

// encode appends v at nesting depth (for indentation).
func (e *encoder) encode(v any, depth int) {
	switch v := v.(type) {
	case *object:
		e.object(v, depth)
	case []any:
		e.array(v, depth)
	case string:
		e.buf = appendString(e.buf, v, e.style)
	case float64:
		if e.style == pythonIndent {
			e.buf = append(e.buf, pyJSONFloat(v)...)
		} else {
			e.buf = append(e.buf, rapidFloat(v)...)
		}
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case intLit:
		e.buf = append(e.buf, v...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case nil:
		e.buf = append(e.buf, "null"...)
	case json.RawMessage:
		e.raw(v, depth)
	default:
		if e.err == nil {
			e.err = fmt.Errorf("genaiperf: cannot encode %T as JSON", v)
		}
	}
}

func (e *encoder) object(o *object, depth int) {
	if len(o.keys) == 0 {
		e.buf = append(e.buf, "{}"...)
		return
	}
	e.buf = append(e.buf, '{')
	for i, k := range o.keys {
		e.separator(i, depth+1)
		e.buf = appendString(e.buf, k, e.style)
		if e.style == pythonIndent {
			e.buf = append(e.buf, ": "...)
		} else {
			e.buf = append(e.buf, ':')
		}
		e.encode(o.vals[i], depth+1)
	}
	e.closing(depth)
	e.buf = append(e.buf, '}')
}

func (e *encoder) array(a []any, depth int) {
	if len(a) == 0 {
		e.buf = append(e.buf, "[]"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i, v := range a {
		e.separator(i, depth+1)
		e.encode(v, depth+1)
	}
	e.closing(depth)
	e.buf = append(e.buf, ']')
}

// separator writes what precedes the i-th member: a comma after the first,
// and in indent mode a newline and the member's indentation.
// raw embeds JSON encoded elsewhere (llmbench's own blocks, written by
// encoding/json), indented to sit at depth in the pythonIndent style.
func (e *encoder) raw(v json.RawMessage, depth int) {
	var b bytes.Buffer
	var err error
	if e.style == pythonIndent {
		err = json.Indent(&b, v, strings.Repeat("  ", depth), "  ")
	} else {
		err = json.Compact(&b, v)
	}
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("genaiperf: embedded JSON: %w", err)
	}
	e.buf = append(e.buf, b.Bytes()...)
}

func (e *encoder) separator(i, depth int) {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
	if e.style == pythonIndent {
		e.newline(depth)
	}
}

func (e *encoder) closing(depth int) {
	if e.style == pythonIndent {
		e.newline(depth)
	}
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// marshal encodes v in the given style.
func marshal(v any, style jsonStyle) ([]byte, error) {
	e := encoder{style: style}
	e.encode(v, 0)
	return e.buf, e.err
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Python (ensure_ascii=True)
// escapes everything outside printable ASCII as \uxxxx, with surrogate
// pairs above the BMP; rapidjson escapes only control characters (upper-case
// hex) and writes the rest as UTF-8. Invalid UTF-8 becomes U+FFFD in both,
// so the output is always valid JSON.
func appendString(buf []byte, s string, style jsonStyle) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		if n := plainASCII(s[i:]); n > 0 { // the common case, copied as it is
			buf = append(buf, s[i:i+n]...)
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		default:
			buf = appendRune(buf, r, style)
		}
	}
	return append(buf, '"')
}

// plainASCII is the length of s's prefix of printable ASCII other than
// the quote and the backslash: what both styles write unescaped.
func plainASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

// appendRune appends a rune that has no short escape.
func appendRune(buf []byte, r rune, style jsonStyle) []byte {
	switch {
	case r < 0x20 && style == rapidCompact:
		return append(buf, '\\', 'u', '0', '0', "0123456789ABCDEF"[r>>4], "0123456789ABCDEF"[r&0xF])
	case r < 0x20 || (style == pythonIndent && r > 0x7e):
		if r > 0xFFFF {
			r -= 0x10000
			buf = appendU4(buf, 0xD800+(r>>10))
			return appendU4(buf, 0xDC00+(r&0x3FF))
		}
		return appendU4(buf, r)
	}
	return utf8.AppendRune(buf, r)
}

func appendU4(buf []byte, r rune) []byte {
	return append(buf, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

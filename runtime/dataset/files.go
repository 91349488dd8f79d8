package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// maxLine is the longest line a line-based dataset file may have: long
// enough for a 100k-token literal prompt many times over.
const maxLine = 64 << 20

// LineError is a problem with a dataset file, at a line and, when one is
// at fault, a field.
type LineError struct {
	Path string
	Line int
	// Field is the JSON key (or path, "conversations[1].value") at fault;
	// "" when the line as a whole is.
	Field string
	Msg   string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.Path, e.Line, e.Field, e.Msg)
}

// FileInfo is what checking a dataset file found.
type FileInfo struct {
	// Entries is the number of entries the file yields.
	Entries int
	// Skipped counts ShareGPT conversations left out for lacking a human
	// turn followed by a gpt turn.
	Skipped int
	// Timed is set for a trace whose every line has a timestamp, as a
	// replay needs.
	Timed bool
	// Media counts the entries that carry pictures or audio clips.
	Media int
}

// shown is how a file source names its file: the path as the scenario
// wrote it when known.
func shown(path, as string) string {
	if as != "" {
		return as
	}
	return path
}

// eachLine calls f with every line of the file that is not blank, with its
// 1-based number. A UTF-8 byte order mark at the start is ignored.
func eachLine(path string, f func(line int, text []byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if err := f(line, text); err != nil {
			return err
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return &LineError{Path: path, Line: line + 1, Msg: fmt.Sprintf("line longer than %d MiB", maxLine>>20)}
	}
	return sc.Err()
}

// record is one JSON object of a dataset file, with where it came from so
// that every complaint about it names the file, line and field.
type record struct {
	path   string
	line   int
	prefix string // prepended to field names: "conversations[2]."
	fields map[string]json.RawMessage
}

// parseRecord parses one line holding a JSON object.
func parseRecord(path string, line int, text []byte) (*record, error) {
	r := &record{path: path, line: line}
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) > 0 && trimmed[0] != '{' && json.Valid(trimmed) {
		return nil, r.errorf("", "got a JSON %s, want an object", jsonType(trimmed))
	}
	if err := json.Unmarshal(text, &r.fields); err != nil {
		return nil, r.errorf("", "%s", jsonError(err))
	}
	return r, nil
}

// jsonError words a decoding error for a line, with its column.
func jsonError(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("malformed JSON at column %d: %v", syn.Offset, syn)
	}
	return "malformed JSON: " + err.Error()
}

func (r *record) errorf(field, format string, args ...any) error {
	if field != "" {
		field = r.prefix + field
	}
	return &LineError{Path: r.path, Line: r.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// get returns a field's raw value; null counts as absent.
func (r *record) get(field string) (json.RawMessage, bool) {
	raw, ok := r.fields[field]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// str reads an optional string field.
func (r *record) str(field string) (string, bool, error) {
	raw, ok := r.get(field)
	if !ok {
		return "", false, nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false, r.errorf(field, "got %s, want a string", jsonType(raw))
	}
	return s, true, nil
}

// prompt reads the prompt of GenAI-Perf's input lines: "text" or
// "text_input", never both, and never empty (an empty prompt measures
// nothing a user means, and servers answer it differently).
func (r *record) prompt() (string, bool, error) {
	text, ok, err := r.eitherPrompt()
	if err == nil && ok && strings.TrimSpace(text) == "" {
		field := "text"
		if _, in := r.get("text_input"); in {
			field = "text_input"
		}
		return "", false, r.errorf(field, "got %q, want a prompt with text", text)
	}
	return text, ok, err
}

func (r *record) eitherPrompt() (string, bool, error) {
	text, hasText, err := r.str("text")
	if err != nil {
		return "", false, err
	}
	input, hasInput, err := r.str("text_input")
	if err != nil {
		return "", false, err
	}
	if hasText && hasInput {
		return "", false, r.errorf("text_input", "given with text; want one of text or text_input")
	}
	if hasInput {
		return input, true, nil
	}
	return text, hasText, nil
}

// count reads an optional integer field >= 0 (52.0 is accepted as 52:
// traces written by Python often carry integral floats).
func (r *record) count(field string) (int, bool, error) {
	raw, ok := r.get(field)
	if !ok {
		return 0, false, nil
	}
	n, err := integer(raw)
	if err != nil || n < 0 {
		return 0, false, r.errorf(field, "got %s, want an integer >= 0", describeJSON(raw))
	}
	return int(n), true, nil
}

// number reads an optional number field >= 0.
func (r *record) number(field string) (float64, bool, error) {
	raw, ok := r.get(field)
	if !ok {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if jsonType(raw) != "number" || err != nil || f < 0 {
		return 0, false, r.errorf(field, "got %s, want a number >= 0", describeJSON(raw))
	}
	return f, true, nil
}

// ints reads an optional list of integers.
func (r *record) ints(field string) ([]int64, bool, error) {
	raw, ok := r.get(field)
	if !ok {
		return nil, false, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false, r.errorf(field, "got %s, want a list of integers", jsonType(raw))
	}
	out := make([]int64, len(items))
	for i, item := range items {
		n, err := integer(item)
		if err != nil {
			return nil, false, r.errorf(fmt.Sprintf("%s[%d]", field, i), "got %s, want an integer", describeJSON(item))
		}
		out[i] = n
	}
	return out, true, nil
}

// id reads an optional identifier: a string or an integer, as a string.
func (r *record) id(field string) (string, error) {
	raw, ok := r.get(field)
	if !ok {
		return "", nil
	}
	if raw[0] == '"' {
		s, _, err := r.str(field)
		return s, err
	}
	if _, err := integer(raw); err != nil {
		return "", r.errorf(field, "got %s, want a string or an integer", describeJSON(raw))
	}
	return string(raw), nil
}

// integer parses a JSON number that holds an integer.
func integer(raw json.RawMessage) (int64, error) {
	if jsonType(raw) != "number" {
		return 0, errors.New("not a number")
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, errors.New("not an integer")
	}
	return int64(f), nil
}

// jsonType names the JSON type of a valid raw value.
func jsonType(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// describeJSON shows a value in a message: numbers and short strings as
// written, anything else by type.
func describeJSON(raw []byte) string {
	switch t := jsonType(raw); {
	case t == "number", t == "boolean":
		return string(raw)
	case t == "string" && len(raw) <= 40:
		return "string " + string(raw)
	default:
		return t
	}
}

// cycle returns n entries taken in order from all, wrapping around (all
// of them when n <= 0).
func cycle(all []Entry, n int) []Entry {
	if n <= 0 || n == len(all) || len(all) == 0 {
		return all
	}
	if n < len(all) {
		return all[:n:n]
	}
	out := make([]Entry, n)
	for i := range out {
		out[i] = all[i%len(all)]
	}
	return out
}

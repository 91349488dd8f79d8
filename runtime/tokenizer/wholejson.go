package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// checkWhole checks that data is one complete JSON object and nothing
// else. The fields are read with jsonparser, which finds a key without
// reading the rest of the document, so without this check a file cut
// short after its model (a failed download, a full disk) loads as if it
// were whole, and one cut inside it is reported as not a tokenizer.json.
// The check is the scanner of encoding/json, a small fraction of a load.
func checkWhole(data []byte) error {
	if json.Valid(data) {
		if b := bytes.TrimLeft(data, " \t\r\n"); b[0] != '{' {
			return fmt.Errorf("a JSON %s, not an object: not a Hugging Face tokenizer.json", jsonKind(b[0]))
		}
		return nil
	}
	// The slow path, for a broken file only: the decoder tells a value
	// that stops short from one that is malformed, and where.
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	err := dec.Decode(&v)
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("empty file (want a complete tokenizer.json)")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("truncated at byte %d (want a complete tokenizer.json)", len(data))
	case errors.As(err, &syn):
		return fmt.Errorf("malformed JSON at byte %d: %v (want a complete tokenizer.json)", syn.Offset, syn)
	case err != nil:
		return fmt.Errorf("malformed JSON: %v (want a complete tokenizer.json)", err)
	}
	end := int(dec.InputOffset())
	end += len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
	return fmt.Errorf("unexpected data after the JSON object at byte %d (want a single tokenizer.json object)", end+1)
}

// jsonKind names the JSON type a value starting with c has.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

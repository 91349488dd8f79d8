package transport

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// byteByByteStr is str as it was before it read eight bytes at a time:
// the oracle of TestStrEqualsByteByByte.
func byteByByteStr(data []byte, pos int) (raw []byte, escaped bool, end int, ok bool) {
	if pos >= len(data) || data[pos] != '"' {
		return nil, false, 0, false
	}
	pos++
	start := pos
	for pos < len(data) {
		switch c := data[pos]; {
		case !stringSpecial[c]:
			pos++
		case c == '"':
			return data[start:pos], escaped, pos + 1, true
		case c == '\\':
			n := escapeLen(data[pos:])
			if n == 0 {
				return nil, false, 0, false
			}
			pos += n
			escaped = true
		default:
			return nil, false, 0, false
		}
	}
	return nil, false, 0, false
}

// str's eight-bytes-at-a-time search must read every string as the byte
// by byte one does: every byte value at every position of a word and of
// the tail, after ordinary, high (UTF-8) and borderline bytes that a
// borrow could confuse, then random strings with escapes, quotes and
// control characters.
func TestStrEqualsByteByByte(t *testing.T) {
	check := func(data []byte) {
		t.Helper()
		s := scanner{data: data}
		raw, escaped, err := s.str()
		wantRaw, wantEscaped, wantEnd, ok := byteByByteStr(data, 0)
		if (err == nil) != ok || ok && (string(raw) != string(wantRaw) || escaped != wantEscaped || s.pos != wantEnd) {
			t.Fatalf("%q: got %q, escaped %v, end %d, err %v; want %q, %v, %d, ok %v",
				data, raw, escaped, s.pos, err, wantRaw, wantEscaped, wantEnd, ok)
		}
	}
	fills := []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0x81, 0xa0, 0xdf, 0xff, '"' + 1, '\\' + 1}
	for _, fill := range fills {
		for n := range 20 {
			for pos := range n {
				for c := range 256 {
					body := []byte(strings.Repeat(string(fill), n))
					body[pos] = byte(c)
					check(append([]byte{'"'}, body...))
					check(append(append([]byte{'"'}, body...), `"}`...))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab é\\\"\x00\x1f\t/unrt0123456789abcdefABCDEF")
	for range 300000 {
		data := make([]byte, 1+rng.IntN(40))
		data[0] = '"'
		for i := 1; i < len(data); i++ {
			data[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(data)
	}
}

// Strings long enough for the word-wide search keep the scanner's verdict
// equal to encoding/json's: a control character, quote or escape at every
// offset of a long string, valid and not.
func TestLongStringsValidLikeEncodingJSON(t *testing.T) {
	for _, special := range []string{"\x00", "\x1f", "\t", `\"`, `\\`, `\u00e9`, `\x`, `\u12`, "\"", "é", "\x7f"} {
		for pos := range 40 {
			text := strings.Repeat("w", pos) + special + strings.Repeat("o", 40-pos)
			in := `{"choices":[{"delta":{"content":"` + text + `"}}]}`
			var d decoder
			p, err := d.decode([]byte(in))
			if valid := json.Valid([]byte(in)); valid != (err == nil) {
				t.Fatalf("%q: json.Valid=%v, scanner err=%v", in, valid, err)
			}
			if err != nil {
				continue
			}
			var ref struct {
				Choices []struct{ Delta struct{ Content string } }
			}
			if err := json.Unmarshal([]byte(in), &ref); err != nil {
				t.Fatal(err)
			}
			if string(p.text) != ref.Choices[0].Delta.Content {
				t.Fatalf("%q: content %q, encoding/json says %q", in, p.text, ref.Choices[0].Delta.Content)
			}
		}
	}
}

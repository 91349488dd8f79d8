package transport

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// nextStringSpecial's eight-bytes-at-a-time search must find exactly the
// byte the byte-by-byte table finds: every byte value at every position of
// a word and of the tail, after ordinary, high (UTF-8) and borderline
// bytes that a borrow could confuse.
func TestNextStringSpecialEqualsByteByByte(t *testing.T) {
	byteByByte := func(data []byte, i int) int {
		for i < len(data) && !stringSpecial[data[i]] {
			i++
		}
		return i
	}
	fills := []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0x81, 0xa0, 0xdf, 0xff, '"' + 1, '\\' + 1}
	for _, fill := range fills {
		for n := range 20 {
			for pos := range n {
				for c := range 256 {
					data := []byte(strings.Repeat(string(fill), n))
					data[pos] = byte(c)
					for start := range min(n, 9) {
						if got, want := nextStringSpecial(data, start), byteByByte(data, start); got != want {
							t.Fatalf("fill %#x, %d bytes, %#x at %d, from %d: got %d, want %d", fill, n, c, pos, start, got, want)
						}
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		data := make([]byte, rng.IntN(40))
		for i := range data {
			data[i] = byte(rng.IntN(256))
			if rng.IntN(4) > 0 { // mostly text, specials sparse
				data[i] = byte(0x20 + rng.IntN(0x60))
			}
		}
		start := 0
		if len(data) > 0 {
			start = rng.IntN(len(data))
		}
		if got, want := nextStringSpecial(data, start), byteByByte(data, start); got != want {
			t.Fatalf("%q from %d: got %d, want %d", data, start, got, want)
		}
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

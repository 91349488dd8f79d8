package tokenizer

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"
)

// gunzip reads a committed .json.gz.
func gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzParse feeds the tokenizer.json parser the synthetic files the
// generator trained (every component the package supports), cut down to
// ~1 KB each by tinyTokenizers, each edited by the fuzzer (edited: a patch
// and a cut), or any bytes at all. The 20–56 KB files themselves, as whole
// inputs, ran 12 executions in 30 s, the fuzzer minimizing its first find
// the whole time; the model-sized files are slower still. A file is
// refused with an error or accepted; an accepted one must encode any text
// to ids inside its vocabulary, decode them without panicking, and be
// refused once its last byte is cut off (the defect where a file missing
// its final brace loaded).
func FuzzParse(f *testing.F) {
	texts := []string{"Hello, world! 123", " \n\t x  y", "中文😀 café", "<|endoftext|>hi", "\xff\xfe bad", "abab ba", "a<s>a"}
	bases := append([][]byte{nil, []byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}}`),
		[]byte(`{"model":{"vocab":{"a":0},"merges":[["a","a"]]},"added_tokens":[{"id":5,"content":"<s>","special":true}]}`)},
		tinyTokenizers(f)...)
	for i := range bases {
		f.Add(uint8(i), uint32(0), []byte(nil), uint32(0), texts[i%len(texts)])
		f.Add(uint8(i), uint32(9), []byte(`"`), uint32(0), texts[i%len(texts)])
	}
	f.Fuzz(func(t *testing.T, base uint8, at uint32, patch []byte, cut uint32, text string) {
		data := edited(bases[int(base)%len(bases)], at, patch, cut)
		tk, err := parse(data)
		if err != nil {
			if tk != nil {
				t.Fatal("parse returned a tokenizer and an error")
			}
			return
		}
		for _, s := range []string{text, strings.ToValidUTF8(text, "?"), string(data[:min(len(data), 64)])} { // any text, valid UTF-8 or not
			ids := tk.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tk.VocabSize() {
					t.Fatalf("Encode(%q) gave id %d outside [0, %d)", s, id, tk.VocabSize())
				}
			}
			if n := tk.Count(s); n != len(ids) {
				t.Fatalf("Count(%q) = %d, Encode gave %d ids", s, n, len(ids))
			}
			_ = tk.Decode(ids)
		}
		body := bytes.TrimRight(data, " \t\r\n")
		if _, err := parse(body[:len(body)-1]); err == nil {
			t.Fatalf("accepted %q and also the same without its last byte", clipBytes(data))
		}
	})
}

func clipBytes(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

package tokenizer

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestCountAll counts the fixture texts concurrently (run it with -race)
// and compares with the reference lengths.
func TestCountAll(t *testing.T) {
	for _, name := range []string{"llama3", "gemma3"} {
		fx := readFixture(t, name)
		tk := testTokenizer(t, name)
		var texts []string
		for range 3 { // repeats exercise the caches from several goroutines
			for _, c := range fx.Encode {
				texts = append(texts, c.Text)
			}
		}
		got := tk.CountAll(texts)
		for i, s := range texts {
			want := len(fx.Encode[i%len(fx.Encode)].IDs)
			if got[i] != want || tk.Count(s) != want {
				t.Fatalf("%s text %d: CountAll %d, Count %d, want %d", name, i, got[i], tk.Count(s), want)
			}
		}
	}
	if n := testTokenizer(t, "llama3").Count("Hello world"); n != 2 {
		t.Errorf("Count(Hello world) = %d, want 2", n)
	}
}

func TestCountCacheIsBounded(t *testing.T) {
	c := newCountCache(3)
	for i, s := range []string{"a", "b", "c", "d"} {
		c.put(s, i)
	}
	if _, ok := c.get("a"); ok {
		t.Error("oldest entry survived")
	}
	if n, ok := c.get("d"); !ok || n != 3 {
		t.Errorf("get(d) = %d, %v", n, ok)
	}
	if len(c.items) != 3 || c.order.Len() != 3 {
		t.Errorf("size %d/%d, want 3", len(c.items), c.order.Len())
	}
}

func TestSpecialTokensAndDecode(t *testing.T) {
	tk := testTokenizer(t, "qwen3")
	ids := tk.Encode("<|im_start|>user\nHi<|im_end|>")
	if ids[0] != 151644 || ids[len(ids)-1] != 151645 || !tk.IsSpecial(151644) || tk.IsSpecial(ids[1]) {
		t.Fatalf("special tokens not split out: %v", ids)
	}
	if got := tk.Decode(ids); got != "user\nHi" {
		t.Errorf("Decode skips special tokens: got %q", got)
	}
	if tk.VocabSize() != 151669 {
		t.Errorf("VocabSize = %d", tk.VocabSize())
	}
}

func TestLossyUTF8MatchesRust(t *testing.T) {
	cases := map[string]string{
		"\xe4\xb8":          "\uFFFD",       // truncated 3-byte sequence: one replacement
		"\xe4\xb8a":         "\uFFFDa",      //
		"\xff\xfe":          "\uFFFD\uFFFD", // invalid bytes: one each
		"\xed\xa0\x80":      "\uFFFD\uFFFD\uFFFD",
		"\xf0\x9f\x98":      "\uFFFD",
		"a\xf0\x9f\x98\x80": "a😀",
		"\xc0\xaf":          "\uFFFD\uFFFD",
	}
	for in, want := range cases {
		if got := lossyUTF8([]byte(in)); got != want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLongPiecesAreLinearish guards the priority-queue merge: a quadratic
// merge takes seconds on these (tests do not time; the benchmark does, and
// this at least runs them).
func TestLongPieces(t *testing.T) {
	tk := testTokenizer(t, "llama3")
	for _, s := range []string{strings.Repeat(" ", 100_000), strings.Repeat("abcdefghij", 5_000)} {
		ids := tk.Encode(s)
		if tk.Decode(ids) != s {
			t.Errorf("round trip failed for a %d-byte piece", len(s))
		}
	}
}

// FuzzEncodeDecode checks that encoding never panics and yields ids in
// range for any input, and that byte-level tokenizers decode their own
// encoding back to the input for valid UTF-8 without added tokens.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"", "Hello, world!", "  \n\t x", "中文😀👨‍👩‍👧", "<|im_start|>hi", "\xff\xfe bad",
		"e\u0301" + strings.Repeat("\u0308", 40), "12345678", "'s 'LL", "\u00a0\u2028\u3000"} {
		f.Add(s)
	}
	names := []string{"llama3", "qwen3", "gpt4o", "llama2", "gemma3", "synth-metaspace"}
	tks := make([]*Tokenizer, len(names))
	for i, n := range names {
		tks[i] = testTokenizer(f, n)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, tk := range tks {
			ids := tk.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tk.VocabSize() {
					t.Fatalf("%s: id %d out of range", names[i], id)
				}
			}
			_ = tk.Decode(ids)
			if i > 2 || !utf8.ValidString(s) || slices.ContainsFunc(ids, tk.IsSpecial) {
				continue
			}
			if names[i] == "qwen3" && !norm.NFC.IsNormalString(s) {
				continue // Qwen normalizes to NFC first
			}
			if got := tk.Decode(ids); got != s {
				t.Fatalf("%s: Decode(Encode(%q)) = %q", names[i], s, got)
			}
		}
	})
}

package dataset

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/runtime/tokenizer"
)

var (
	tokMu    sync.Mutex
	tokCache = map[string]*tokenizer.Tokenizer{}
)

// realTokenizer loads one of the real tokenizers committed with the
// tokenizer package, once per test binary.
func realTokenizer(t testing.TB, name string) *tokenizer.Tokenizer {
	t.Helper()
	tokMu.Lock()
	defer tokMu.Unlock()
	if tk, ok := tokCache[name]; ok {
		return tk
	}
	tk, err := tokenizer.Load("../tokenizer/testdata/" + name + ".json.gz")
	if err != nil {
		t.Fatal(err)
	}
	tokCache[name] = tk
	return tk
}

// The byte-level (Llama 3, Qwen 3) and SentencePiece-style (Llama 2)
// tokenizers all get prompts of exactly the sampled length, verified here
// by encoding them again.
func TestSyntheticIsTokenExact(t *testing.T) {
	for _, name := range []string{"llama3", "qwen3", "llama2"} {
		t.Run(name, func(t *testing.T) {
			tk := realTokenizer(t, name)
			for _, s := range []Synthetic{
				{Input: Fixed{333}, Output: Fixed{100}, Entries: 20, Seed: 1},
				{Input: Normal{300, 30}, Entries: 100, Seed: 2},
				{Input: Uniform{0, 40}, Entries: 50, Seed: 3},
				{Input: Fixed{1}, Entries: 10, Seed: 4},
			} {
				s.Tokenizer = tk
				entries, err := s.Build(0)
				if err != nil {
					t.Fatal(err)
				}
				for i, e := range entries {
					if got := len(tk.Encode(e.Text)); got != e.Words {
						t.Fatalf("%s entry %d: %d tokens, want %d: %q", s, i, got, e.Words, e.Text)
					}
					if fixed, ok := s.Input.(Fixed); ok && e.Words != int(fixed.N) {
						t.Fatalf("%s entry %d: Words %d", s, i, e.Words)
					}
					if strings.HasPrefix(e.Text, " ") {
						t.Fatalf("%s entry %d starts with a space: %q", s, i, e.Text)
					}
				}
				again, _ := s.Build(0)
				for i := range entries {
					if !reflect.DeepEqual(entries[i], again[i]) {
						t.Fatalf("%s: same seed, different entry %d", s, i)
					}
				}
				if s.Output != nil && entries[0].MaxTokens != 100 {
					t.Errorf("output length %d", entries[0].MaxTokens)
				}
			}
		})
	}
}

// Entries drawing the same shared prefix start with the same text, which
// is exactly PrefixTokens tokens long; the whole prompt is exact too.
func TestSyntheticSharedPrefixesAreExact(t *testing.T) {
	for _, name := range []string{"llama3", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tk := realTokenizer(t, name)
			s := Synthetic{Input: Fixed{200}, PrefixTokens: 300, Prefixes: 3, Entries: 30, Seed: 9, Tokenizer: tk}
			entries, err := s.Build(0)
			if err != nil {
				t.Fatal(err)
			}
			groups := map[string][]string{} // first 300 token ids → texts
			for _, e := range entries {
				ids := tk.Encode(e.Text)
				if len(ids) != 500 || e.Words != 500 {
					t.Fatalf("%d tokens, Words %d, want 500", len(ids), e.Words)
				}
				key := fmt.Sprint(ids[:300])
				groups[key] = append(groups[key], e.Text)
			}
			if len(groups) != 3 {
				t.Fatalf("%d distinct prefixes, want 3", len(groups))
			}
			for _, texts := range groups {
				p := texts[0]
				for _, x := range texts[1:] {
					p = commonPrefix(p, x)
				}
				if n := len(tk.Encode(p)); len(texts) > 1 && (n < 300 || n > 305) {
					t.Errorf("entries sharing a prefix share %d tokens of text, want 300 (and a word or so by chance)", n)
				}
			}
			// A zero-length body leaves the prefix alone, exactly.
			s.Input = Fixed{0}
			only, err := s.Build(3)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range only {
				if len(tk.Encode(e.Text)) != 300 {
					t.Errorf("prefix alone: %d tokens", len(tk.Encode(e.Text)))
				}
			}
		})
	}
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// Without a tokenizer the word-list generator is unchanged: WithTokenizer
// is what switches a scenario's datasets to token-exact prompts.
func TestWithTokenizerReachesEverySource(t *testing.T) {
	tk := realTokenizer(t, "llama3")
	m := Mix{Components: []Source{Synthetic{Input: Fixed{5}}, ShareGPT{Path: "x"}, Trace{Path: "y"}, JSONL{Path: "z"}}}
	got := WithTokenizer(m, tk).(Mix)
	if got.Components[0].(Synthetic).Tokenizer != tk || got.Components[1].(ShareGPT).Tokenizer != tk ||
		got.Components[2].(Trace).Tokenizer != tk || got.Components[3] != (JSONL{Path: "z"}) {
		t.Errorf("WithTokenizer: %#v", got.Components)
	}
	if m.Components[0].(Synthetic).Tokenizer != nil {
		t.Error("WithTokenizer changed the mix it was given")
	}
}

// BenchmarkSyntheticExact builds 100 fresh prompts of 4096 tokens under
// Llama 3 (a new seed each time, so the tokenizer's count cache is cold).
func BenchmarkSyntheticExact(b *testing.B) {
	tk := realTokenizer(b, "llama3")
	seed := uint64(0)
	for b.Loop() {
		seed++
		s := Synthetic{Input: Fixed{4096}, Entries: 100, Seed: seed, Tokenizer: tk}
		if _, err := s.Build(0); err != nil {
			b.Fatal(err)
		}
	}
}

// mergingTokenizer is a word tokenizer that merges across word boundaries
// (" of the" is one token) and splits long words in two, so joined corpus
// runs do not simply add up: prompts must be re-encoded and adjusted.
type mergingTokenizer struct {
	mu     sync.Mutex
	ids    map[string]int
	pieces []string
}

func (m *mergingTokenizer) id(p string) int {
	if id, ok := m.ids[p]; ok {
		return id
	}
	if m.ids == nil {
		m.ids = map[string]int{}
	}
	m.ids[p] = len(m.pieces)
	m.pieces = append(m.pieces, p)
	return m.ids[p]
}

func (m *mergingTokenizer) Encode(s string) []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var words []string
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] != ' ' {
			j++
		}
		words = append(words, s[i:j])
		i = j
	}
	var ids []int
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == " of" && i+1 < len(words) && words[i+1] == " the":
			ids = append(ids, m.id(" of the"))
			i++
		case len(w) > 8:
			ids = append(ids, m.id(w[:5]), m.id(w[5:]))
		default:
			ids = append(ids, m.id(w))
		}
	}
	return ids
}

func (m *mergingTokenizer) Decode(ids []int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(m.pieces[id])
	}
	return b.String()
}

func TestExactAdjustsWhenTokensMergeAcrossRuns(t *testing.T) {
	tk := &mergingTokenizer{}
	s := Synthetic{Input: Uniform{0, 3000}, PrefixTokens: 40, Prefixes: 2, Entries: 200, Seed: 5, Tokenizer: tk}
	entries, err := s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if got := len(tk.Encode(e.Text)); got != e.Words {
			t.Fatalf("entry %d: %d tokens, want %d", i, got, e.Words)
		}
	}
	c, _ := corpusFor(tk)
	merged := 0 // prompts whose plain joined runs were off: the adjusting was exercised
	for _, e := range entries {
		rng := rand.New(rand.NewPCG(uint64(e.Words), 1))
		txt := strings.TrimLeft(c.text(c.plan(rng, e.Words, nil)), " ")
		if len(tk.Encode(txt)) != e.Words {
			merged++
		}
	}
	if merged == 0 {
		t.Error("the fake tokenizer never disturbed a count; the test exercises nothing")
	}
	var trace strings.Builder
	for i := range 60 {
		fmt.Fprintf(&trace, `{"timestamp": %d, "input_length": %d, "hash_ids": [1, 2, %d]}`+"\n", i, 1025+8*i, 3+i%4)
	}
	tr := Trace{Path: writeFile(t, "t.jsonl", trace.String()), Tokenizer: tk}
	got, err := tr.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimLeft(c.text(c.plan(tr.blockRNG(1), BlockSize, nil))+c.text(c.plan(tr.blockRNG(2), BlockSize, nil)), " ")
	for i, e := range got {
		if n := len(tk.Encode(e.Text)); n != 1025+8*i || !strings.HasPrefix(e.Text, head) {
			t.Fatalf("trace entry %d: %d tokens, want %d; shares blocks 1, 2: %v", i, n, 1025+8*i, strings.HasPrefix(e.Text, head))
		}
	}
}

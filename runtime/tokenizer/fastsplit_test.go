package tokenizer

import (
	"slices"
	"testing"
)

// splitterInputs are the fixture texts of every committed tokenizer.
func splitterInputs(t testing.TB) []string {
	var texts []string
	for _, name := range fixtureNames(t) {
		for _, c := range readFixture(t, name).Encode {
			texts = append(texts, c.Text)
		}
	}
	return texts
}

// TestFastSplitters checks each hand-written scanner against regexp2 on
// the fixture corpus.
func TestFastSplitters(t *testing.T) {
	texts := splitterInputs(t)
	texts = append(texts, "'ſ 'K 'S x'LL 'Re", "\u00a0\u00a0a", " \n \n a", "a  \t b", "A\u0301b", "ǅa")
	for pattern, fast := range fastMatchers {
		slow, err := compileBacktracking(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			if got, want := fast.findAll(s, nil), slow.findAll(s, nil); !slices.Equal(got, want) {
				t.Fatalf("pattern %.30q… on %+q:\n got  %v\n want %v", pattern, clip(s), got, want)
			}
		}
	}
}

// FuzzFastSplitters compares the scanners with regexp2 on any input.
func FuzzFastSplitters(f *testing.F) {
	for _, s := range []string{"Hello world's 123456", " \n\r\n  x", "ΣΑΣ ǅungla's", "a\u0301\u0302b", "'LL'll", "x  /\n"} {
		f.Add(s)
	}
	type pair struct{ fast, slow matcher }
	var pairs []pair
	for pattern, fast := range fastMatchers {
		slow, err := compileBacktracking(pattern)
		if err != nil {
			f.Fatal(err)
		}
		pairs = append(pairs, pair{fast, slow})
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = string([]rune(s)) // the tokenizer sees valid UTF-8 only
		for _, p := range pairs {
			if got, want := p.fast.findAll(s, nil), p.slow.findAll(s, nil); !slices.Equal(got, want) {
				t.Fatalf("on %+q:\n got  %v\n want %v", s, got, want)
			}
		}
	})
}

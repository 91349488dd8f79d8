package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestNormalizerFixture compares the Unicode normalization forms and
// Lowercase with the reference, including runs of more than 30 combining
// marks, where golang.org/x/text alone would differ.
func TestNormalizerFixture(t *testing.T) {
	f, err := os.Open("testdata/normalizer-fixture.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []struct{ Normalizer, Input, Output string } `json:"cases"`
	}
	if err := json.NewDecoder(zr).Decode(&fx); err != nil {
		t.Fatal(err)
	}
	built := map[string]normalizer{}
	bad := 0
	for _, c := range fx.Cases {
		n, ok := built[c.Normalizer]
		if !ok {
			n, err = buildNormalizer(json.RawMessage(`{"type":"` + c.Normalizer + `"}`))
			if err != nil {
				t.Fatal(err)
			}
			built[c.Normalizer] = n
		}
		if got := normalizeText(n, c.Input); got != c.Output {
			bad++
			if bad <= 5 {
				t.Errorf("%s(%+q) = %+q, want %+q", c.Normalizer, clip(c.Input), clip(got), clip(c.Output))
			}
		}
	}
	t.Logf("%d/%d normalizer cases equal", len(fx.Cases)-bad, len(fx.Cases))
}

// TestReplaceLead checks the alignment rule the Metaspace "first" scheme
// depends on: a replacement belongs to the first character only when the
// whole match does.
func TestReplaceLead(t *testing.T) {
	cases := []struct {
		pattern, content, in string
		lead                 int
		want                 string
		wantLead             int
	}{
		{" ", "▁", " ab", 1, "▁ab", 3},
		{"ab", "#", "abc", 1, "#c", 0},
		{"b", "#", "abc", 1, "a#c", 1},
		{"a", "", "abc", 1, "bc", 0},
		{"x", "y", "abc", 1, "abc", 1},
		{"a", "zz", "aab", 1, "zzzzb", 2},
	}
	for _, c := range cases {
		r := replaceNorm{literal(c.pattern), c.content}
		got, lead := r.normalize(c.in, c.lead)
		if got != c.want || lead != c.wantLead {
			t.Errorf("replace %q→%q in %q (lead %d) = %q, %d; want %q, %d",
				c.pattern, c.content, c.in, c.lead, got, lead, c.want, c.wantLead)
		}
	}
	if got := normalizeText(lowercaseNorm{}, "İSTANBUL"); got != strings.ToLower("i\u0307stanbul") {
		t.Errorf("Lowercase(İSTANBUL) = %q", got)
	}
}

package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fixture is what testdata/gen/gen_fixtures.py wrote from the reference
// (the Rust tokenizers library through its Python binding).
type fixture struct {
	Tokenizer string `json:"tokenizer"`
	Source    string `json:"source"`
	Reference string `json:"reference"`
	Encode    []struct {
		Text string `json:"text"`
		IDs  []int  `json:"ids"`
	} `json:"encode"`
	Decode []struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	} `json:"decode"`
}

func fixtureNames(t testing.TB) []string {
	paths, err := filepath.Glob("testdata/fixtures/*.json.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/fixtures: %v", err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".json.gz"))
	}
	return names
}

func readFixture(t testing.TB, name string) *fixture {
	f, err := os.Open(filepath.Join("testdata", "fixtures", name+".json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := json.NewDecoder(zr).Decode(&fx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &fx
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*Tokenizer{}
)

// testTokenizer loads testdata/<name>.json.gz once per test binary; the big
// vocabularies take a noticeable fraction of a second each.
func testTokenizer(t testing.TB, name string) *Tokenizer {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if tk, ok := loaded[name]; ok {
		return tk
	}
	tk, err := Load(filepath.Join("testdata", name+".json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	loaded[name] = tk
	return tk
}

// TestFixtures requires 100% id equality with the reference on every string
// of every committed tokenizer, and equal decodings.
func TestFixtures(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fx := readFixture(t, name)
			tk := testTokenizer(t, name)
			bad := 0
			for _, c := range fx.Encode {
				got := tk.Encode(c.Text)
				if !slices.Equal(got, c.IDs) {
					bad++
					if bad <= 5 {
						i := firstDiff(got, c.IDs)
						t.Errorf("Encode(%q): %d ids, want %d; first difference at %d:\n got  %v\n want %v",
							clip(c.Text), len(got), len(c.IDs), i, window(got, i), window(c.IDs, i))
					}
				}
			}
			badDec := 0
			for _, c := range fx.Decode {
				if got := tk.Decode(c.IDs); got != c.Text {
					badDec++
					if badDec <= 5 {
						t.Errorf("Decode(%v)\n got  %q\n want %q", clipIDs(c.IDs), clip(got), clip(c.Text))
					}
				}
			}
			t.Logf("%s (%s): encode %d/%d equal, decode %d/%d equal",
				name, fx.Source, len(fx.Encode)-bad, len(fx.Encode), len(fx.Decode)-badDec, len(fx.Decode))
		})
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func firstDiff(a, b []int) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// window shows the ids around position i.
func window(ids []int, i int) []int {
	return ids[max(0, i-5):min(len(ids), i+10)]
}

func clipIDs(ids []int) []int {
	if len(ids) > 40 {
		return ids[:40]
	}
	return ids
}

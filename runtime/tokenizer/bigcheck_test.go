package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBigCheck(t *testing.T) {
	paths, _ := filepath.Glob("/tmp/bigcheck/*.json.gz")
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json.gz")
		f, _ := os.Open(p)
		zr, _ := gzip.NewReader(f)
		var fx fixture
		json.NewDecoder(zr).Decode(&fx)
		f.Close()
		tk := testTokenizer(t, name)
		bad := 0
		for _, c := range fx.Encode {
			got := tk.Encode(c.Text)
			if !slices.Equal(got, c.IDs) {
				bad++
				if bad <= 3 {
					i := firstDiff(got, c.IDs)
					t.Errorf("%s Encode(%+q): first diff %d\n got %v\nwant %v", name, clip(c.Text), i, window(got, i), window(c.IDs, i))
				}
			}
		}
		t.Logf("%s: %d/%d", name, len(fx.Encode)-bad, len(fx.Encode))
	}
}

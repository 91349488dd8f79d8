package records

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// edited is base with patch written over it from at (on past its end if
// the patch is longer), then cut short by cut bytes: a fuzz input of a few
// bytes that stands for a corrupted or torn file, so the file fuzz targets
// mutate the small edit, not the file. With whole files of 3 to 44 KB as
// inputs, the fuzzer spent a 30 s run minimizing its first find byte by
// byte (7 to 343 executions counted); an edit of a few bytes minimizes at
// once. An empty base makes the patch the whole file: any bytes at all
// remain reachable.
func edited(base []byte, at uint32, patch []byte, cut uint32) []byte {
	pos := int(at % uint32(len(base)+1))
	data := append(bytes.Clone(base[:pos]), patch...)
	if end := pos + len(patch); end < len(base) {
		data = append(data, base[end:]...)
	}
	return data[:len(data)-int(cut%uint32(len(data)+1))]
}

// fileBases are the files the records targets edit: small generated files,
// finished and crashed, one of no rows, every schema version's fixture,
// and none (the patch alone). New bases go before the fixtures, whose
// number grows: the corpus names a base by its index.
func fileBases(tb testing.TB) [][]byte {
	tb.Helper()
	bases := [][]byte{nil, smallFile(tb, 2, true), smallFile(tb, 10, true), smallFile(tb, 10, false), smallFile(tb, 0, true)}
	paths, err := filepath.Glob(filepath.Join("testdata", "fixtures", "v*.parquet"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		bases = append(bases, b)
	}
	return bases
}

// addEdits seeds a file target with each base as it is, torn 7 bytes short
// (inside its last frame or footer), and with its magic bytes broken.
func addEdits(f *testing.F, bases [][]byte) {
	for i := range bases {
		f.Add(uint8(i), uint32(0), []byte(nil), uint32(0))
		f.Add(uint8(i), uint32(0), []byte(nil), uint32(7))
		f.Add(uint8(i), uint32(0), []byte("PAR0"), uint32(0))
	}
	f.Add(uint8(0), uint32(0), []byte("PAR1"), uint32(0))
}

func TestEdited(t *testing.T) {
	base := []byte("abcdef")
	for _, c := range []struct {
		at    uint32
		patch string
		cut   uint32
		want  string
	}{
		{0, "", 0, "abcdef"}, {2, "XY", 0, "abXYef"}, {5, "XYZ", 0, "abcdeXYZ"}, {6, "X", 0, "abcdefX"}, {7, "X", 0, "Xbcdef"},
		{0, "", 2, "abcd"}, {0, "", 6, ""}, {0, "", 7, "abcdef"}, {3, "XYZW", 1, "abcXYZ"},
	} {
		if got := string(edited(base, c.at, []byte(c.patch), c.cut)); got != c.want {
			t.Errorf("edited(%q, %d, %q, %d) = %q, want %q", base, c.at, c.patch, c.cut, got, c.want)
		}
	}
}

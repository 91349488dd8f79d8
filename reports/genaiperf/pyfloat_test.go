package genaiperf

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPyFloatOracle checks pyRepr and pyComma2 against Python's own
// repr(float) and f"{v:,.2f}" on ~3,400 values (testdata/oracle/pyfloat.py):
// edge cases, random bit patterns of every magnitude, ms values scaled from
// ns, and decimals around the fixed/exponent switch points.
func TestPyFloatOracle(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "oracle", "pyfloat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		bits, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil || len(fields) != 3 {
			t.Fatalf("bad oracle line %q", sc.Text())
		}
		v := math.Float64frombits(bits)
		if got := pyRepr(v); got != fields[1] {
			t.Errorf("pyRepr(%s) = %s, Python says %s", fields[0], got, fields[1])
		}
		if got := pyComma2(v); got != fields[2] {
			t.Errorf("pyComma2(%s) = %s, Python says %s", fields[0], got, fields[2])
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 3000 {
		t.Fatalf("oracle has only %d values", n)
	}
}

func TestPyJSONFloat(t *testing.T) {
	for v, want := range map[float64]string{
		math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 2: "2.0",
	} {
		if got := pyJSONFloat(v); got != want {
			t.Errorf("pyJSONFloat(%v) = %s, want %s", v, got, want)
		}
	}
}

// TestRapidFloat pins rapidjson's Prettify rules (fixed notation for
// decimal exponents -7..20, bare exponents beyond).
func TestRapidFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{10, "10.0"}, {2.5, "2.5"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"},
		{0.001, "0.001"}, {1e-6, "0.000001"}, {1.5e-6, "0.0000015"}, {1e-7, "1e-7"},
		{1.25e-7, "1.25e-7"}, {1e20, "100000000000000000000.0"}, {1e21, "1e21"},
		{1e22, "1e22"}, {1.5e30, "1.5e30"}, {-3.75, "-3.75"}, {1e100, "1e100"},
		{123456.789, "123456.789"}, {math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
	} {
		if got := rapidFloat(c.v); got != c.want {
			t.Errorf("rapidFloat(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

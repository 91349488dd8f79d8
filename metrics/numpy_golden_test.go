package metrics

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// numpyCase is one entry of testdata/numpy_golden.json, written by
// testdata/numpy_golden.py from numpy 1.24.2 itself.
type numpyCase struct {
	Name        string             `json:"name"`
	Data        []float64          `json:"data"`
	Generate    int                `json:"generate"`
	Avg         float64            `json:"avg"`
	Std         float64            `json:"std"`
	Min         float64            `json:"min"`
	Max         float64            `json:"max"`
	Percentiles map[string]float64 `json:"percentiles"`
}

// generated mirrors numpy_golden.py's generated(n): a division of exact
// integers, rounded the same way in both languages.
func generated(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1e6 / float64((i*7919)%1009+1)
	}
	return x
}

// TestNumpyGolden checks every statistic against numpy bit for bit: the
// order-dependent pairwise mean and std, and the two-sided interpolation
// of np.percentile, on small, random and buffer-crossing arrays.
func TestNumpyGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/numpy_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []numpyCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			data := c.Data
			if c.Generate > 0 {
				data = generated(c.Generate)
			}
			d := NewDistribution(data)
			same(t, "avg", d.Avg, c.Avg)
			same(t, "std", d.Std, c.Std)
			same(t, "min", d.Min, c.Min)
			same(t, "max", d.Max, c.Max)
			for key, want := range c.Percentiles {
				p, err := strconv.ParseFloat(key, 64)
				if err != nil {
					t.Fatal(err)
				}
				same(t, "p"+key, d.Percentile(p), want)
			}
		})
	}
}

// same fails unless got and want are the same float64, bit for bit.
func same(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

package metrics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// sortInt64s gives slices.Sort's order for durations, negatives, extremes,
// duplicates, values equal in some bytes, and lengths on both sides of
// its small-slice cut.
func TestSortInt64sEqualsSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	draws := map[string]func() int64{
		"gaps":      func() int64 { return 2_000_000 + int64(rng.NormFloat64()*50_000) },
		"any":       func() int64 { return int64(rng.Uint64()) },
		"signed":    func() int64 { return rng.Int64N(2000) - 1000 },
		"few":       func() int64 { return int64(rng.IntN(3)) << 40 },
		"extremes":  func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[rng.IntN(5)] },
		"one value": func() int64 { return 42 },
	}
	for name, draw := range draws {
		for _, n := range []int{0, 1, 2, 1023, 1024, 1025, 5000, 100_000} {
			v := make([]int64, n)
			for i := range v {
				v[i] = draw()
			}
			want := slices.Clone(v)
			slices.Sort(want)
			sortInt64s(v)
			if !slices.Equal(v, want) {
				t.Fatalf("%s, %d values: not sorted as slices.Sort sorts them", name, n)
			}
		}
	}
}

// BenchmarkSortGaps sorts a 2,400 × 200-token run's pooled chunk gaps (a
// 2 ms cadence with scheduling noise) as gapValues.distribution does.
func BenchmarkSortGaps(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	gaps := make([]int64, 2400*199)
	for i := range gaps {
		gaps[i] = 2_000_000 + int64(rng.NormFloat64()*50_000)
	}
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			sortInt64s(slices.Clone(gaps))
		}
	})
	b.Run("float-pdqsort", func(b *testing.B) { // what it replaced
		for b.Loop() {
			values := make([]float64, len(gaps))
			for i, v := range gaps {
				values[i] = float64(v)
			}
			slices.Sort(values)
		}
	})
}

// TestSortedDistributionIsNewDistribution: a distribution of values
// already sorted, kept without a copy, is the one NewDistribution makes
// of them, every statistic and percentile alike.
func TestSortedDistributionIsNewDistribution(t *testing.T) {
	values := generated(20000)
	slices.Sort(values)
	want := NewDistribution(slices.Clone(values))
	got := sortedDistribution(values)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sortedDistribution = %+v, NewDistribution = %+v", got, want)
	}
	if sortedDistribution(nil) != nil {
		t.Fatal("no values gave a distribution")
	}
}

// TestSortedFloats: the gaps as sorted floats, whichever array the radix
// sort ends in (one pass or two: values that differ in one byte or two)
// and below its small-slice cut, with the gaps left in their order.
func TestSortedFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n, span, below int64
	}{
		{10, 1 << 40, 1 << 38},   // below the cut: slices.Sort
		{5000, 200, 0},           // one byte differs: one pass, sorted into scratch
		{5000, 60000, 0},         // two bytes: two passes, back in v
		{5000, 1 << 40, 1 << 38}, // negatives too: every byte
	} {
		v := make([]int64, tc.n)
		for i := range v {
			v[i] = r.Int64N(tc.span) - tc.below
		}
		want := make([]float64, len(v))
		for i, x := range v {
			want[i] = float64(x)
		}
		slices.Sort(want)
		pooled := slices.Clone(v)
		if got := sortedFloats(v); !slices.Equal(got, want) {
			t.Fatalf("n %d span %d: sortedFloats differs from the sorted conversion", tc.n, tc.span)
		}
		if !slices.Equal(v, pooled) {
			t.Fatalf("n %d span %d: sortedFloats reordered its input", tc.n, tc.span)
		}
	}
	if sortedFloats(nil) != nil {
		t.Fatal("no values gave some")
	}
}

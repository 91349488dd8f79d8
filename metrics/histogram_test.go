package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The histogram's percentiles stay within 1/4096 of numpy's over the exact
// values, and its count, min, max, avg and std are exact.
func TestLogHistogramMatchesExactWithinResolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var values []float64
	h := &logHistogram{}
	for range 200_000 {
		v := int64(math.Exp(math.Log(20e6) + 0.8*rng.NormFloat64())) // ~20 ms gaps, long tail
		if rng.IntN(50) == 0 {
			v = int64(rng.IntN(3000)) // back-to-back chunks: exact buckets
		}
		values = append(values, float64(v))
		h.add(v)
	}
	exact, approx := NewDistribution(values), h.distribution()
	if approx.Count != exact.Count || approx.Min != exact.Min || approx.Max != exact.Max {
		t.Fatalf("count/min/max %d %v %v, want %d %v %v", approx.Count, approx.Min, approx.Max, exact.Count, exact.Min, exact.Max)
	}
	if rel(approx.Avg, exact.Avg) > 1e-12 || rel(approx.Std, exact.Std) > 1e-9 {
		t.Errorf("avg %v std %v, want %v %v", approx.Avg, approx.Std, exact.Avg, exact.Std)
	}
	for _, p := range []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99} {
		if got, want := approx.Percentile(p), exact.Percentile(p); rel(got, want) > 1.0/4096 {
			t.Errorf("p%v = %v, want %v within 1/4096", p, got, want)
		}
	}
	if approx.P99 != approx.Percentile(99) {
		t.Errorf("P99 %v != Percentile(99) %v", approx.P99, approx.Percentile(99))
	}
}

func rel(a, b float64) float64 {
	if b == 0 {
		return math.Abs(a)
	}
	return math.Abs(a-b) / math.Abs(b)
}

// Every bucket's midpoint lies inside the bucket, and buckets are
// contiguous: the value just past a bucket's end starts the next one.
func TestHistogramBucketsAreContiguous(t *testing.T) {
	for _, v := range []int64{0, 1, 4095, 4096, 4097, 8191, 8192, 1 << 40, 1<<62 + 12345} {
		i := histogramBucket(v)
		if histogramBucket(v+1) != i && histogramBucket(v+1) != i+1 {
			t.Errorf("bucket(%d)=%d, bucket(%d)=%d: not contiguous", v, i, v+1, histogramBucket(v+1))
		}
		if mid := bucketMidpoint(i); rel(mid, float64(v)) > 1.0/4096 {
			t.Errorf("midpoint of bucket %d is %v, too far from %d", i, mid, v)
		}
	}
}

// Past GapExactLimit the pooled chunk gaps move to the histogram without
// losing a gap, and the summary says the same count, min and max.
func TestChunkGapSwitchesToHistogram(t *testing.T) {
	defer func(old int) { GapExactLimit = old }(GapExactLimit)
	var records []Record
	for i := range 300 {
		chunks := []int64{1e9}
		for j := range 20 {
			chunks = append(chunks, chunks[j]+int64(1e6+i*1000+j))
		}
		records = append(records, Record{ID: int64(i), Sent: 1, Chunks: chunks, OutputTokens: 21})
	}
	exact := Summarize(records, Options{}).ChunkGap
	GapExactLimit = 1000
	approx := Summarize(records, Options{}).ChunkGap
	if approx.hist == nil || exact.hist != nil {
		t.Fatalf("histogram used: exact %v, approx %v", exact.hist != nil, approx.hist != nil)
	}
	if approx.Count != 6000 || approx.Min != exact.Min || approx.Max != exact.Max || rel(approx.Avg, exact.Avg) > 1e-12 {
		t.Errorf("got %+v, want %+v", approx, exact)
	}
	if rel(approx.P50, exact.P50) > 1.0/4096 {
		t.Errorf("p50 %v, want %v", approx.P50, exact.P50)
	}
}

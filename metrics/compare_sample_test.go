package metrics

import (
	"slices"
	"testing"
)

// sampleRecords are n streamed requests sent 100 ms apart, out of order,
// the i-th sent with TTFT ttft(i) and 4 chunks 10 ms apart; every fifth
// fails.
func sampleRecords(n int, ttftOf func(i int) int64) []Record {
	recs := make([]Record, n)
	for k := range n {
		i := n - 1 - k // stored newest first: Gate.Sample orders by send time
		sent := int64(i) * 100e6
		ttft := ttftOf(i)
		r := Record{ID: int64(i), Sent: sent, InputTokens: 10, OutputTokens: 4}
		for c := range 4 {
			r.Chunks = append(r.Chunks, sent+ttft+int64(c)*10e6)
		}
		r.Done = r.Chunks[3]
		if i%5 == 4 {
			r.Err = &Failure{Class: ErrHTTP, Status: 500}
		}
		recs[k] = r
	}
	return recs
}

func TestSampleReadsRepeatsAndValues(t *testing.T) {
	recs := sampleRecords(50, func(i int) int64 { return int64(i+1) * 1e6 })
	sum := Summarize(recs, Options{})
	run := RunData{Summary: &sum, Records: recs}

	s, err := sampleOf(t, "ttft.p99", []RunData{run, run})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Repeats) != 2 || s.Repeats[0] != sum.TimeToFirstToken.Percentile(99) {
		t.Errorf("repeats %v, want the summary's ttft.p99 %v twice", s.Repeats, sum.TimeToFirstToken.Percentile(99))
	}
	var want []float64
	for i := range 50 {
		if i%5 != 4 {
			want = append(want, float64(i+1)*1e6)
		}
	}
	if !slices.Equal(s.Values, want) {
		t.Errorf("values %v, want the completed requests' TTFTs in send order %v", s.Values, want)
	}

	e, err := sampleOf(t, "error_rate", []RunData{run})
	if err != nil || len(e.Values) != 50 || e.Values[4] != 1 || e.Values[0] != 0 || e.Repeats[0] != 0.2 {
		t.Errorf("error_rate sample %+v (%v)", e, err)
	}
	tp, err := sampleOf(t, "output_token_throughput", []RunData{run})
	if err != nil || len(tp.Values) != windowsPerRun {
		t.Errorf("throughput sample: %d windows (%v), want %d", len(tp.Values), err, windowsPerRun)
	}
	if _, err := BaselineGate("nonsense.p99", 0.1); err == nil {
		t.Error("an unknown metric was accepted")
	}
}

// sampleOf is one side of the comparison of a metric named as compare
// names it, as the judge reads it.
func sampleOf(t *testing.T, name string, runs []RunData) (Sample, error) {
	t.Helper()
	g, err := BaselineGate(name, 0.10)
	if err != nil {
		t.Fatal(err)
	}
	return g.Sample(runs)
}

package metrics

import (
	"reflect"
	"testing"
)

// TestRequestValueFromSchedule reads the from-schedule latencies the way
// compare draws its per-request samples: planned 100, sent 130, chunks
// 150 and 190 give 50 and 90; a closed-loop request gives none.
func TestRequestValueFromSchedule(t *testing.T) {
	open := Record{Scheduled: 100, Sent: 130, Chunks: []int64{150, 190}, OutputTokens: 2}
	closed := Record{Sent: 130, Chunks: []int64{150, 190}, OutputTokens: 2}
	cases := []struct {
		metric *Metric
		r      *Record
		want   []float64
	}{
		{TTFTFromSchedule, &open, []float64{50}},
		{RequestLatencyFromSchedule, &open, []float64{90}},
		{TTFTFromSchedule, &closed, nil},
		{RequestLatencyFromSchedule, &closed, nil},
	}
	for _, c := range cases {
		got := c.metric.request(c.r, Derive(c.r))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s of %+v = %v, want %v", c.metric, *c.r, got, c.want)
		}
	}
}

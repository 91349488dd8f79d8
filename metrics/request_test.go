package metrics

import (
	"reflect"
	"slices"
	"testing"
)

func TestDerive(t *testing.T) {
	cases := []struct {
		name string
		r    Record
		want RequestMetrics
		gaps []int64 // ChunkGaps
	}{
		{
			// GenAI-Perf example request 1: ttft 5−1 = 4 ms, latency 12−1 = 11 ms,
			// ttst 8−5 = 3 ms, itl (11−4)/(3−1) = 3.5 ms, tps 1/0.0035 = 285.714…
			name: "streamed",
			r: Record{Sent: 1_000_000, Chunks: []int64{5_000_000, 8_000_000, 12_000_000},
				InputTokens: 3, OutputTokens: 3},
			want: RequestMetrics{HasContent: true, TTFT: 4_000_000, Latency: 11_000_000,
				HasTTST: true, TTST: 3_000_000, HasITL: true, ITL: 3_500_000,
				HasTPSUser: true, TPSUser: 285.7142857142857,
				ISL: 3, OSL: 3},
			gaps: []int64{3_000_000, 4_000_000},
		},
		{
			// latency−ttft = 15−10 = 5 ns over osl−1 = 2: 2.5 rounds half to even → 2;
			// tps 1/(2/1e9): 2e-9 is inexact, so 499999999.99999994, as in Python.
			name: "itl 2.5 rounds to 2",
			r:    Record{Sent: 0, Chunks: []int64{10, 15}, OutputTokens: 3},
			want: RequestMetrics{HasContent: true, TTFT: 10, Latency: 15, HasTTST: true, TTST: 5,
				HasITL: true, ITL: 2, HasTPSUser: true, TPSUser: 499999999.99999994, OSL: 3},
			gaps: []int64{5},
		},
		{
			// 7 ns over 2: 3.5 rounds half to even → 4; tps 1/(4/1e9) = 249999999.99999997.
			name: "itl 3.5 rounds to 4",
			r:    Record{Sent: 100, Chunks: []int64{110, 117}, OutputTokens: 3},
			want: RequestMetrics{HasContent: true, TTFT: 10, Latency: 17, HasTTST: true, TTST: 7,
				HasITL: true, ITL: 4, HasTPSUser: true, TPSUser: 249999999.99999997, OSL: 3},
			gaps: []int64{7},
		},
		{
			// 10 ns over 3 = 3.33… → 3 (plain rounding, not a tie); tps 1/(3/1e9).
			name: "itl rounds down",
			r:    Record{Sent: 0, Chunks: []int64{5, 10, 15}, OutputTokens: 4},
			want: RequestMetrics{HasContent: true, TTFT: 5, Latency: 15, HasTTST: true, TTST: 5,
				HasITL: true, ITL: 3, HasTPSUser: true, TPSUser: 333333333.3333333,
				OSL: 4},
			gaps: []int64{5, 5},
		},
		{
			// GenAI-Perf's 1/(itl/1e9) with itl = 3000017 ns is 333.33144445514813;
			// 1e9/itl would be 333.3314444551481. itl = (3000018−1)/1.
			name: "tps keeps genai-perf expression",
			r:    Record{Sent: 0, Chunks: []int64{1, 3_000_018}, OutputTokens: 2},
			want: RequestMetrics{HasContent: true, TTFT: 1, Latency: 3_000_018, HasTTST: true,
				TTST: 3_000_017, HasITL: true, ITL: 3_000_017, HasTPSUser: true,
				TPSUser: 333.33144445514813, OSL: 2},
			gaps: []int64{3_000_017},
		},
		{
			// Non-streaming: one chunk at completion; ttft == latency, no ttst/itl.
			name: "single chunk",
			r:    Record{Sent: 10, Chunks: []int64{50}, InputTokens: 7, OutputTokens: 20},
			want: RequestMetrics{HasContent: true, TTFT: 40, Latency: 40, ISL: 7, OSL: 20},
		},
		{
			// Two chunks but a single output token: ttst yes, itl no (osl−1 = 0).
			name: "osl 1",
			r:    Record{Sent: 0, Chunks: []int64{4, 9}, OutputTokens: 1},
			want: RequestMetrics{HasContent: true, TTFT: 4, Latency: 9, HasTTST: true, TTST: 5,
				OSL: 1},
			gaps: []int64{5},
		},
		{
			// Chunks in the same ns: itl 0 is a value, tps/user is not (1/0).
			name: "itl 0",
			r:    Record{Sent: 0, Chunks: []int64{4, 4}, OutputTokens: 5},
			want: RequestMetrics{HasContent: true, TTFT: 4, Latency: 4, HasTTST: true, TTST: 0,
				HasITL: true, ITL: 0, OSL: 5},
			gaps: []int64{0},
		},
		{
			// Role-only first chunk and [DONE] never reach Chunks: no content, no times.
			name: "no content",
			r:    Record{Sent: 10, Done: 90, InputTokens: 3},
			want: RequestMetrics{ISL: 3},
		},
		{
			// Two reasoning chunks then answers: ttfo = third chunk − sent = 30−0;
			// ttft is the first chunk of either kind; itl (40−10)/3 = 10, tps 1/(10/1e9) = 1e8.
			name: "reasoning",
			r:    Record{Sent: 0, Chunks: []int64{10, 20, 30, 40}, ReasoningChunks: 2, OutputTokens: 4},
			want: RequestMetrics{HasContent: true, TTFT: 10, Latency: 40, HasTTST: true, TTST: 10,
				HasITL: true, ITL: 10, HasTPSUser: true, TPSUser: 1e8, HasTTFO: true, TTFO: 30,
				OSL: 4},
			gaps: []int64{10, 10, 10},
		},
		{
			// Open loop: planned at 100, sent at 130 (30 late), chunks at 150 and
			// 190: ttft 150−130 = 20 and latency 190−130 = 60 from the send, but
			// 150−100 = 50 and 190−100 = 90 from the schedule.
			name: "from the schedule",
			r:    Record{Scheduled: 100, Sent: 130, Chunks: []int64{150, 190}, OutputTokens: 2},
			want: RequestMetrics{HasContent: true, TTFT: 20, Latency: 60, HasTTST: true, TTST: 40,
				HasITL: true, ITL: 40, HasTPSUser: true, TPSUser: 25e6,
				HasFromSchedule: true, TTFTFromSchedule: 50, LatencyFromSchedule: 90,
				OSL: 2},
			gaps: []int64{40},
		},
		{
			// Scheduled but no content chunk: nothing to measure from the schedule.
			name: "from the schedule without content",
			r:    Record{Scheduled: 100, Sent: 130, Done: 200},
			want: RequestMetrics{},
		},
		{
			// Only reasoning arrived: no answer chunk, no ttfo.
			name: "reasoning without answer",
			r:    Record{Sent: 0, Chunks: []int64{10}, ReasoningChunks: 1, OutputTokens: 1},
			want: RequestMetrics{HasContent: true, TTFT: 10, Latency: 10, OSL: 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Derive(&c.r); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Derive =\n%+v\nwant\n%+v", got, c.want)
			}
			if got := slices.Collect(c.r.ChunkGaps()); !slices.Equal(got, c.gaps) || c.r.GapCount() != len(c.gaps) {
				t.Errorf("ChunkGaps = %v (GapCount %d), want %v", got, c.r.GapCount(), c.gaps)
			}
		})
	}
}

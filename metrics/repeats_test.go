package metrics

import (
	"math"
	"slices"
	"testing"
)

// The two-sided 95% critical values of Student's t, as printed in every
// statistics table (three decimals).
var tTable975 = map[int]float64{
	1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
	10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
	18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
	26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980,
	100000: 1.960,
}

func TestStudentTQuantileTable(t *testing.T) {
	for df, want := range tTable975 {
		got := studentTQuantile(0.975, float64(df))
		if math.Round(got*1000)/1000 != want {
			t.Errorf("t(0.975, %d) = %.6f, want %.3f", df, got, want)
		}
	}
}

// Closed forms check more digits than a table has: df = 1 is the Cauchy
// distribution, df = 2 has t = (2p − 1) / √(2p(1 − p)), and a large df
// approaches the normal quantile.
func TestStudentTQuantileExact(t *testing.T) {
	cases := []struct {
		p, df, want, tol float64
	}{
		{0.975, 1, math.Tan(math.Pi * (0.975 - 0.5)), 1e-9},
		{0.95, 1, math.Tan(math.Pi * (0.95 - 0.5)), 1e-9},
		{0.975, 2, 0.95 / math.Sqrt(2*0.975*0.025), 1e-9},
		{0.9, 2, 0.8 / math.Sqrt(2*0.9*0.1), 1e-9},
		{0.5, 7, 0, 1e-9},
		{0.975, 1e7, 1.959963984540054, 1e-6},
		{0.95, 10, 1.812, 5e-4},
		{0.995, 3, 5.841, 5e-4},
	}
	for _, c := range cases {
		if got := studentTQuantile(c.p, c.df); math.Abs(got-c.want) > c.tol {
			t.Errorf("t(%v, %v) = %.12f, want %.12f", c.p, c.df, got, c.want)
		}
	}
	for _, bad := range [][2]float64{{0.4, 3}, {1, 3}, {0.975, 0}, {math.NaN(), 3}} {
		if got := studentTQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("t(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}

func TestAcrossRepeats(t *testing.T) {
	nan := math.NaN()
	// The critical values in closed form: t(0.975, 1) = tan(0.475π),
	// t(0.975, 2) = 0.95 / √(2 · 0.975 · 0.025) = 4.302653.
	t1, t2 := math.Tan(0.475*math.Pi), 0.95/math.Sqrt(2*0.975*0.025)
	// stat fills in the interval mean ± t · sd / √n.
	stat := func(n int, mean, sd, tc, spread float64, disagree bool) RepeatStat {
		half := tc * sd / math.Sqrt(float64(n))
		return RepeatStat{N: n, Mean: mean, Stddev: sd, CILow: mean - half, CIHigh: mean + half,
			Spread: spread, Disagree: disagree}
	}
	cases := []struct {
		name   string
		values []float64
		want   RepeatStat
	}{
		{"issue example", []float64{10, 12, 14}, stat(3, 12, 2, t2, 4.0/12, true)},
		// Σ(x − mean)² = 56/3; the range 6 is 5.96% of the mean.
		{"agreeing", []float64{100, 104, 98}, stat(3, 302.0/3, math.Sqrt(56.0/3/2), t2, 6/(302.0/3), false)},
		// Exactly 10% apart is not more than 10%.
		{"two repeats 10% apart", []float64{95, 105}, stat(2, 100, math.Sqrt(50), t1, 0.1, false)},
		{"just over 10%", []float64{94, 106}, stat(2, 100, math.Sqrt(72), t1, 0.12, true)},
		{"identical zeros", []float64{0, 0, 0}, stat(3, 0, 0, t2, 0, false)},
		// A relative spread around a near-zero mean (an error rate) is large.
		{"around zero", []float64{0, 0.01, 0}, stat(3, 0.01/3, math.Sqrt(0.0001/3), t2, 3, true)},
		{"one run", []float64{5}, RepeatStat{N: 1, Mean: 5, Stddev: nan, CILow: nan, CIHigh: nan, Spread: 0}},
		{"no runs", nil, RepeatStat{N: 0, Mean: nan, Stddev: nan, CILow: nan, CIHigh: nan, Spread: nan}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := AcrossRepeats(c.values), c.want
			if got.N != want.N || got.Disagree != want.Disagree ||
				!closeTo(got.Mean, want.Mean) || !closeTo(got.Stddev, want.Stddev) ||
				!closeTo(got.CILow, want.CILow) || !closeTo(got.CIHigh, want.CIHigh) || !closeTo(got.Spread, want.Spread) {
				t.Errorf("AcrossRepeats(%v) =\n %+v\nwant\n %+v", c.values, got, want)
			}
		})
	}
}

// The example to the digits a report prints: 12 ± 4.97.
func TestAcrossRepeatsInterval(t *testing.T) {
	st := AcrossRepeats([]float64{10, 12, 14})
	if math.Round(st.CILow*1000)/1000 != 7.032 || math.Round(st.CIHigh*1000)/1000 != 16.968 {
		t.Errorf("CI [%v, %v], want [7.032, 16.968]", st.CILow, st.CIHigh)
	}
}

// closeTo compares to 1e-9 relative, NaN equal to NaN.
func closeTo(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func headlineSummary(ttftP99Ms, tput float64, goodput *float64) *Summary {
	dist := func(p50, p99 float64) *Distribution { return &Distribution{Count: 10, P50: p50, P99: p99} }
	return &Summary{
		TimeToFirstToken:      dist(ttftP99Ms*1e6/2, ttftP99Ms*1e6),
		InterTokenLatency:     dist(10e6, 20e6),
		RequestLatency:        dist(900e6, 1500e6),
		OutputTokenThroughput: tput,
		RequestThroughput:     tput / 100,
		RequestGoodput:        goodput,
		Completed:             99,
		Failed:                1,
		ErrorRate:             0.01,
	}
}

func TestHeadlineValues(t *testing.T) {
	wantNames := []string{"ttft.p50", "ttft.p99", "itl.p50", "itl.p99", "request_latency.p99",
		"output_token_throughput", "request_throughput", "request_goodput", "error_rate"}
	if got := HeadlineNames(); !slices.Equal(got, wantNames) {
		t.Errorf("HeadlineNames = %v, want %v", got, wantNames)
	}
	goodput := 7.5
	got := HeadlineValues(headlineSummary(400, 1600, &goodput))
	want := map[string]float64{
		"ttft.p50": 200e6, "ttft.p99": 400e6, "itl.p50": 10e6, "itl.p99": 20e6, "request_latency.p99": 1500e6,
		"output_token_throughput": 1600, "request_throughput": 16, "request_goodput": 7.5, "error_rate": 0.01,
	}
	if len(got) != len(want) {
		t.Errorf("HeadlineValues = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}

	// Unmeasured metrics are absent, not zero.
	sparse := &Summary{OutputTokenThroughput: 0, RequestThroughput: 0}
	got = HeadlineValues(sparse)
	for _, absent := range []string{"ttft.p50", "itl.p99", "request_goodput", "error_rate"} {
		if _, ok := got[absent]; ok {
			t.Errorf("%s present in a run that did not measure it", absent)
		}
	}
	if _, ok := got["output_token_throughput"]; !ok {
		t.Error("output_token_throughput absent")
	}
	if got := HeadlineValues(nil); len(got) != 0 {
		t.Errorf("HeadlineValues(nil) = %v", got)
	}
}

func TestHeadlineRepeats(t *testing.T) {
	g1, g2 := 5.0, 6.0
	runs := []*Summary{headlineSummary(400, 1000, &g1), headlineSummary(420, 1200, &g2), headlineSummary(410, 1400, nil)}
	stats := HeadlineRepeats(runs)
	if st := stats["output_token_throughput"]; st.N != 3 || st.Mean != 1200 || st.Stddev != 200 || !st.Disagree {
		t.Errorf("output_token_throughput %+v", st)
	}
	if st := stats["ttft.p99"]; st.N != 3 || !closeTo(st.Mean, 410e6) || st.Disagree {
		t.Errorf("ttft.p99 %+v", st)
	}
	// Goodput was measured by two repeats of three.
	if st := stats["request_goodput"]; st.N != 2 || st.Mean != 5.5 {
		t.Errorf("request_goodput %+v", st)
	}
	if len(HeadlineRepeats(nil)) != 0 {
		t.Error("HeadlineRepeats(nil) not empty")
	}
}

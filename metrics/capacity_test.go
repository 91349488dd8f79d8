package metrics

import (
	"strings"
	"testing"
)

// sweepPoint is a constructed sweep point: output token throughput in
// tokens/s and p99 TTFT in ms (0 for none measured).
func sweepPoint(load, throughput, ttftP99Ms float64) LoadPoint {
	s := &Summary{OutputTokenThroughput: throughput}
	if ttftP99Ms > 0 {
		s.TimeToFirstToken = &Distribution{Count: 1, P99: ttftP99Ms * 1e6}
	}
	return LoadPoint{Load: load, Summary: s}
}

// series builds points at loads with the given throughputs and p99 TTFTs.
func series(loads, throughputs, ttfts []float64) []LoadPoint {
	points := make([]LoadPoint, len(loads))
	for i, l := range loads {
		points[i] = sweepPoint(l, throughputs[i], ttfts[i])
	}
	return points
}

var pow2Loads = []float64{1, 2, 4, 8, 16, 32, 64}

func TestKnee(t *testing.T) {
	ttftGate := mustParseGate(t, "ttft.p99 < 500ms")
	ttfts := func(ms ...float64) []LoadPoint {
		points := make([]LoadPoint, len(ms))
		for i, v := range ms {
			points[i] = sweepPoint(pow2Loads[i], 100, v)
		}
		return points
	}
	cases := []struct {
		name   string
		points []LoadPoint
		gate   Gate
		want   int
		wantOK bool
	}{
		{"monotone", ttfts(100, 120, 200, 450, 700, 900), ttftGate, 3, true},
		// A pass after the first failure is noise, not the knee.
		{"noisy", ttfts(100, 130, 520, 480, 900), ttftGate, 1, true},
		{"noisy at the first step", ttfts(100, 600, 300, 200), ttftGate, 0, true},
		{"every point passes", ttfts(100, 120, 140), ttftGate, 2, true},
		{"first point misses", ttfts(600, 300, 200), ttftGate, -1, false},
		{"no points", nil, ttftGate, -1, false},
		// A point that measured no TTFT is no evidence it meets the SLO.
		{"unmeasured point", ttfts(100, 120, 0, 130), ttftGate, 1, true},
		{"nil summary", []LoadPoint{sweepPoint(1, 100, 100), {Load: 2}}, ttftGate, 0, true},
		{"throughput gate", series(pow2Loads[:4], []float64{800, 1200, 900, 1500}, []float64{1, 1, 1, 1}),
			mustParseGate(t, "output_token_throughput >= 1000"), -1, false},
		{"throughput gate passes then fails", series(pow2Loads[:4], []float64{1100, 1200, 900, 1500}, []float64{1, 1, 1, 1}),
			mustParseGate(t, "output_token_throughput >= 1000"), 1, true},
		// A baseline gate needs the baseline's value; without it nothing passes.
		{"baseline gate", ttfts(100, 120), mustParseGate(t, "ttft.p99 <= baseline * 1.1"), -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Knee(c.points, c.gate)
			if got != c.want || ok != c.wantOK {
				t.Errorf("Knee = %d, %v; want %d, %v", got, ok, c.want, c.wantOK)
			}
		})
	}
}

func TestMaxGoodput(t *testing.T) {
	withGoodput := func(load float64, g ...float64) LoadPoint {
		p := sweepPoint(load, 100, 100)
		if len(g) > 0 {
			p.Summary.RequestGoodput = &g[0]
		}
		return p
	}
	cases := []struct {
		name   string
		points []LoadPoint
		want   int
		wantOK bool
	}{
		{"rises then falls", []LoadPoint{withGoodput(1, 2), withGoodput(2, 3.5), withGoodput(4, 5), withGoodput(8, 4.2)}, 2, true},
		{"tie goes to the lower load", []LoadPoint{withGoodput(1, 2), withGoodput(2, 5), withGoodput(4, 5)}, 1, true},
		{"zero goodput is measured", []LoadPoint{withGoodput(1, 0), withGoodput(2, 0)}, 0, true},
		{"points without goodput are skipped", []LoadPoint{withGoodput(1), withGoodput(2, 1), {Load: 4}}, 1, true},
		{"no goodput SLOs", []LoadPoint{withGoodput(1), withGoodput(2)}, -1, false},
		{"no points", nil, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MaxGoodput(c.points)
			if got != c.want || ok != c.wantOK {
				t.Errorf("MaxGoodput = %d, %v; want %d, %v", got, ok, c.want, c.wantOK)
			}
		})
	}
}

func TestSaturationCheck(t *testing.T) {
	flat := []float64{180, 180, 180, 180, 180, 180, 180}
	cases := []struct {
		name        string
		rule        SaturationRule
		param       string
		points      []LoadPoint
		want        int
		wantOK      bool
		wantReason  string // exact when set
		wantContain []string
	}{
		{
			// A batch capacity of 16: throughput flattens past 16, and
			// the saturation point is 16, the last load that still gained.
			name:       "monotone",
			points:     series(pow2Loads, []float64{100, 200, 400, 800, 1600, 1650, 1660}, []float64{100, 100, 101, 102, 105, 180, 400}),
			want:       4,
			wantOK:     true,
			wantReason: "output token throughput grew 3.1% (< 5%) from concurrency 16 to 32 (1600 → 1650 tokens/s)",
		},
		{
			// A dip is a stall: the first one ends the scan even though
			// throughput recovers later.
			name:       "noisy dip",
			points:     series(pow2Loads[:5], []float64{100, 190, 370, 360, 700}, flat),
			want:       2,
			wantOK:     true,
			wantReason: "output token throughput fell 2.7% (growth < 5%) from concurrency 4 to 8 (370 → 360 tokens/s)",
		},
		{
			// Uneven gains of at least 5% keep going; exactly 5% is not
			// "less than 5%".
			name:        "noisy but growing",
			points:      series(pow2Loads[:6], []float64{100, 230, 400, 800, 840, 850}, flat),
			want:        4,
			wantOK:      true,
			wantContain: []string{"grew 1.2% (< 5%) from concurrency 16 to 32"},
		},
		{
			name:       "never saturating",
			points:     series(pow2Loads, []float64{100, 200, 400, 800, 1600, 3200, 6400}, flat),
			want:       6,
			wantOK:     false,
			wantReason: "never saturated up to concurrency 64: the capacity reported is only the highest load tried",
		},
		{
			name:        "saturating at the first point",
			points:      series(pow2Loads[:3], []float64{1000, 1020, 1030}, flat),
			want:        0,
			wantOK:      true,
			wantContain: []string{"grew 2.0% (< 5%) from concurrency 1 to 2"},
		},
		{
			// Throughput still grows but latency has more than doubled.
			name:       "TTFT doubling",
			points:     series(pow2Loads[:5], []float64{100, 200, 400, 800, 1600}, []float64{180, 190, 250, 412, 900}),
			want:       2,
			wantOK:     true,
			wantReason: "p99 TTFT 412 ms at concurrency 8 is 2.3× (> 2×) the lowest load's 180 ms at concurrency 1",
		},
		{
			name:   "both rules at one point",
			points: series(pow2Loads[:4], []float64{100, 200, 400, 410}, []float64{100, 110, 150, 250}),
			want:   2,
			wantOK: true,
			wantReason: "output token throughput grew 2.5% (< 5%) from concurrency 4 to 8 (400 → 410 tokens/s); " +
				"p99 TTFT 250 ms at concurrency 8 is 2.5× (> 2×) the lowest load's 100 ms at concurrency 1",
		},
		{
			name:        "TTFT rule before the throughput rule",
			points:      series(pow2Loads[:5], []float64{100, 200, 400, 800, 810}, []float64{100, 150, 201, 300, 400}),
			want:        1,
			wantOK:      true,
			wantContain: []string{"p99 TTFT 201 ms at concurrency 4 is 2.01× (> 2×)"},
		},
		{
			name:        "throughput rule before the TTFT rule",
			points:      series(pow2Loads[:5], []float64{100, 200, 201, 300, 400}, []float64{100, 110, 120, 300, 400}),
			want:        1,
			wantOK:      true,
			wantContain: []string{"grew 0.5% (< 5%) from concurrency 2 to 4"},
		},
		{
			name:   "TTFT rule off",
			rule:   SaturationRule{Growth: 0.05},
			points: series(pow2Loads[:4], []float64{100, 200, 400, 800}, []float64{100, 200, 400, 800}),
			want:   3,
		},
		{
			name:   "growth rule off",
			rule:   SaturationRule{TTFTFactor: 2},
			points: series(pow2Loads[:4], []float64{100, 100, 100, 50}, flat),
			want:   3,
		},
		{
			name:        "rate parameter",
			param:       "rate",
			points:      series([]float64{0.5, 1, 2}, []float64{50, 100, 101}, flat),
			want:        1,
			wantOK:      true,
			wantContain: []string{"from rate 1 to 2 (100 → 101 tokens/s)"},
		},
		{
			name:        "unnamed parameter",
			param:       "-",
			points:      series([]float64{1, 2}, []float64{50, 50}, flat),
			want:        0,
			wantOK:      true,
			wantContain: []string{"did not grow", "from load 1 to 2"},
		},
		{
			name:        "growth just under the threshold",
			points:      series([]float64{1, 2}, []float64{1000, 1049.6}, flat),
			want:        0,
			wantOK:      true,
			wantContain: []string{"grew 4.96% (< 5%)"},
		},
		{
			// From no throughput at all to some is growth; nothing to
			// nothing is a stall.
			name:   "zero throughput",
			points: series([]float64{1, 2, 4}, []float64{0, 100, 200}, flat),
			want:   2,
		},
		{
			name:        "zero throughput stays zero",
			points:      series([]float64{1, 2}, []float64{0, 0}, flat),
			want:        0,
			wantOK:      true,
			wantContain: []string{"did not grow"},
		},
		{
			// The reference TTFT is the lowest load that measured one.
			name:        "no TTFT at the lowest load",
			points:      series(pow2Loads[:4], []float64{0, 100, 200, 400}, []float64{0, 100, 150, 201}),
			want:        2,
			wantOK:      true,
			wantContain: []string{"the lowest load's 100 ms at concurrency 2"},
		},
		{
			name:       "one point",
			points:     series([]float64{8}, []float64{100}, flat),
			want:       0,
			wantReason: "never saturated up to concurrency 8: the capacity reported is only the highest load tried",
		},
		{name: "no points", want: -1, wantReason: "never saturated: no load was measured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rule := c.rule
			if rule == (SaturationRule{}) {
				rule = DefaultSaturationRule()
			}
			param := c.param
			switch param {
			case "":
				param = "concurrency"
			case "-":
				param = ""
			}
			got, reason, ok := rule.Check(c.points, param)
			if got != c.want || ok != c.wantOK {
				t.Errorf("Check = %d, %v (%s); want %d, %v", got, ok, reason, c.want, c.wantOK)
			}
			if c.wantReason != "" && reason != c.wantReason {
				t.Errorf("reason:\n got %s\nwant %s", reason, c.wantReason)
			}
			for _, s := range c.wantContain {
				if !strings.Contains(reason, s) {
					t.Errorf("reason %q does not contain %q", reason, s)
				}
			}
		})
	}
}

// The knee of a latency gate and the saturation point name the same kind
// of point, the last good one, so on a server that saturates at 16 both
// report 16.
func TestKneeAndSaturationAgree(t *testing.T) {
	points := series(pow2Loads, []float64{100, 200, 400, 800, 1600, 1620, 1630}, []float64{100, 100, 110, 120, 150, 400, 900})
	knee, _ := Knee(points, mustParseGate(t, "ttft.p99 < 300ms"))
	sat, _, ok := DefaultSaturationRule().Check(points, "concurrency")
	if !ok || points[knee].Load != 16 || points[sat].Load != 16 {
		t.Errorf("knee at %v, saturation at %v (ok %v); want both at 16", points[knee].Load, points[sat].Load, ok)
	}
}

func TestSaturationRuleValidate(t *testing.T) {
	for _, r := range []SaturationRule{{}, DefaultSaturationRule(), {Growth: 0.1}, {TTFTFactor: 1.5}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	for _, r := range []SaturationRule{{Growth: -0.1}, {Growth: 1}, {TTFTFactor: 1}, {TTFTFactor: 0.5}} {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}

func TestFormatBeside(t *testing.T) {
	cases := []struct {
		v, limit float64
		want     string
	}{
		{3.125, 5, "3.1"},
		{4.96, 5, "4.96"},
		{4.9996, 5, "4.9996"},
		{2.29, 2, "2.3"},
		{2.04, 2, "2.04"},
		{2.0004, 2, "2.0004"},
	}
	for _, c := range cases {
		if got := formatBeside(c.v, c.limit, 1); got != c.want {
			t.Errorf("formatBeside(%v, %v) = %s, want %s", c.v, c.limit, got, c.want)
		}
	}
}

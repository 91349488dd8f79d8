package plots

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// labels are the labelled ticks a marker puts on [lo, hi].
func labels(m plot.Ticker, lo, hi float64) []string {
	var out []string
	for _, t := range m.Ticks(lo, hi) {
		if !t.IsMinor() && t.Value >= lo && t.Value <= hi {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		marker plot.Ticker
		lo, hi float64
		want   []string
	}{
		// gonum's default labels this range "0.00 125.00 250.00".
		{"request counts", linearTicks{integer: true}, 0, 260, []string{"0", "50", "100", "150", "200", "250"}},
		{"few requests", linearTicks{integer: true}, 0, 3, []string{"0", "1", "2", "3"}},
		{"milliseconds", linearTicks{}, 0, 2.5, []string{"0", "0.5", "1.0", "1.5", "2.0", "2.5"}},
		{"throughput", linearTicks{}, 0, 1250, []string{"0", "200", "400", "600", "800", "1000", "1200"}},
		{"rounding at the ends", linearTicks{}, 0.1, 0.7, []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}},
		// gonum's LogTicks labels only 100 and 1000 here.
		{"p99 TTFT, log", logTicks{}, 27, 1087, []string{"50", "100", "200", "500", "1000"}},
		{"narrow log", logTicks{}, 2, 9, []string{"2", "3", "4", "5", "6", "7", "8", "9"}},
		{"wide log", logTicks{}, 0.5, 3000, []string{"1", "10", "100", "1000"}},
		{"sub-ms log", logTicks{}, 0.02, 0.3, []string{"0.02", "0.05", "0.1", "0.2"}},
	} {
		if got := labels(tc.marker, tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("%s [%g, %g]: labels %q, want %q", tc.name, tc.lo, tc.hi, got, tc.want)
		}
	}
	// An integer axis gets no minor tick between whole numbers.
	for _, tk := range (linearTicks{integer: true}).Ticks(0, 6) {
		if tk.Value != math.Trunc(tk.Value) {
			t.Errorf("integer axis has a tick at %g", tk.Value)
		}
	}
}

// Counts, token lengths and loads are labelled in whole numbers.
func TestIntegerAxes(t *testing.T) {
	d := pointData(streamingRecords(3000))
	d.gaps = d.positionGaps()
	axes := map[string]*plot.Axis{}
	for name, build := range map[string]func(*PointData, string) (*plot.Plot, error){
		"histogram requests": ttftHist, "ISL": ttftVsISL, "position": itlVsPosition, "heat map ISL": islOSLHeatMap,
	} {
		p, err := build(d, "")
		if err != nil {
			t.Fatal(err)
		}
		axes[name] = &p.Y
		if name != "histogram requests" {
			axes[name] = &p.X
		}
	}
	g, err := goodputVsLoad(newSweepData(sweepResult(true, false)))
	if err != nil {
		t.Fatal(err)
	}
	axes["concurrency"] = &g.X
	for name, a := range axes {
		a := *a
		a.Min, a.Max = math.Floor(a.Min), math.Ceil(a.Max)
		got := labels(a.Tick.Marker, a.Min, a.Max)
		if len(got) < 3 {
			t.Errorf("%s: only labels %q", name, got)
		}
		for _, l := range got {
			if _, err := strconv.Atoi(l); err != nil {
				t.Errorf("%s: label %q is not a whole number (all: %q)", name, l, got)
			}
		}
	}
	// A geometric sweep's loads are each labelled under their point.
	want := []string{"1", "2", "4", "8", "16", "32", "64", "128"}
	if got := labels(g.X.Tick.Marker, g.X.Min, g.X.Max); !slices.Equal(got, want) {
		t.Errorf("concurrency axis labels %q, want %q", got, want)
	}
}

// sweepPlots builds every sweep plot of the fixture with every mark.
func sweepPlots(t *testing.T) map[string]*plot.Plot {
	t.Helper()
	d := newSweepData(withKnee(t, sweepResult(true, true), "ttft.p99 < 500ms"))
	out := map[string]*plot.Plot{}
	for name, build := range map[string]func(*sweepData) (*plot.Plot, error){
		StemThroughputTTFT: curveTTFT, StemThroughputITL: curveITL, StemGoodput: goodputVsLoad, StemRepeats: repeatsVsLoad,
	} {
		p, err := build(d)
		if err != nil || p == nil {
			t.Fatalf("%s: %v, %v", name, p, err)
		}
		out[name] = p
	}
	return out
}

// Throughput axes start at zero, so heights compare as ratios.
func TestThroughputFromZero(t *testing.T) {
	for name, p := range sweepPlots(t) {
		if p.Y.Min != 0 {
			t.Errorf("%s: throughput axis starts at %g", name, p.Y.Min)
		}
	}
}

// The legend is drawn in a band between the title and the data, never on
// the points: gonum draws it inside the data area, where the sweep
// legend covered the first load point. A plot's legend is placed as it
// is encoded.
func TestLegendAboveData(t *testing.T) {
	all := sweepPlots(t)
	d := pointData(streamingRecords(500))
	d.gaps = d.positionGaps()
	for name, build := range map[string]func(*PointData, string) (*plot.Plot, error){
		FileTTFT: ttftHist, FileTTFTvsISL: ttftVsISL, FileITLvsPos: itlVsPosition,
	} {
		p, err := build(d, "a point")
		if err != nil {
			t.Fatal(err)
		}
		all[name] = p
	}
	for name, p := range all {
		padding := p.Title.Padding
		if _, err := encode(p, name); err != nil {
			t.Fatal(err)
		}
		h := p.Legend.Rectangle(draw.Canvas{}).Size().Y
		// Drawn with Top, the legend's bottom edge is YOffs - h above the
		// top of the area gonum hands it, which is the data area's top.
		if !p.Legend.Top || p.Legend.YOffs < h || p.Title.Padding-padding < h {
			t.Errorf("%s: legend (height %v) top=%v lifted by %v into %v of title padding: it overlaps the data",
				name, h, p.Legend.Top, p.Legend.YOffs, p.Title.Padding-padding)
		}
	}
}

// The curve joins the points in increasing load even when the run went
// the other way and the latency dips between two loads: a line sorted by
// latency would jump back and forth between loads.
func TestCurveJoinsPointsInLoadOrder(t *testing.T) {
	res := sweepResult(false, false)
	// c=4's p99 TTFT below c=2's, as a warm cache can make it.
	res.Points[2].Outcome.Summary.TimeToFirstToken = dist(50e6)
	slices.Reverse(res.Points)
	res.Capacity.Saturation = nil
	d := newSweepData(res)
	xys, names, _ := curvePoints(d, metrics.TTFT)
	want := []string{"c=1", "c=2", "c=4", "c=8", "c=16", "c=32", "c=64", "c=128"}
	if !slices.Equal(names, want) {
		t.Fatalf("curve joins %q, want %q", names, want)
	}
	if xys[2].X >= xys[1].X || xys[2].Y <= xys[1].Y {
		t.Errorf("c=4 at %v after c=2 at %v: want the dip kept in load order", xys[2], xys[1])
	}
}

// fixedRecords are n requests of one ISL and one OSL, as a synthetic
// dataset with fixed lengths sends.
func fixedRecords(n, isl, osl int) []metrics.Record {
	recs := make([]metrics.Record, n)
	for i := range recs {
		sent := int64(i) * msNS
		recs[i] = metrics.Record{ID: int64(i), Sent: sent, Chunks: []int64{sent + 30*msNS, sent + 40*msNS},
			Done: sent + 40*msNS, InputTokens: isl, OutputTokens: osl}
	}
	return recs
}

// With fixed lengths (every ISL 300, every OSL 100) the heat map is one
// cell in a readable neighbourhood with its count printed in it, not one
// cell stretched over the whole plot with ticks 300.0–301.0.
func TestHeatMapFixedLengths(t *testing.T) {
	d := pointData(fixedRecords(64, 300, 100))
	p, err := islOSLHeatMap(d, "")
	if err != nil || p == nil {
		t.Fatalf("no heat map: %v", err)
	}
	for _, ax := range []struct {
		name  string
		a     *plot.Axis
		value float64
	}{{"ISL", &p.X, 300}, {"OSL", &p.Y, 100}} {
		if span := ax.a.Max - ax.a.Min; span < minHeatCells || ax.a.Min >= ax.value-1 || ax.a.Max <= ax.value+1 {
			t.Errorf("%s axis [%g, %g] does not frame the one length %g", ax.name, ax.a.Min, ax.a.Max, ax.value)
		}
		if got := labels(ax.a.Tick.Marker, ax.a.Min, ax.a.Max); !slices.Contains(got, strconv.Itoa(int(ax.value))) {
			t.Errorf("%s axis labels %q lack %g", ax.name, got, ax.value)
		}
	}
	g := newCountGrid(d.isl, d.osl)
	if c, r := g.Dims(); c != 1 || r != 1 || g.X(0) != 300 || g.Y(0) != 100 {
		t.Fatalf("grid %d×%d centred at (%g, %g), want one cell at (300, 100)", c, r, g.X(0), g.Y(0))
	}
	counts, err := cellCounts(g, g.top())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts.Labels, []string{"64"}) {
		t.Errorf("cell counts %q, want the one cell's 64", counts.Labels)
	}
	imgs, err := RenderPointPlots("", d)
	if err != nil {
		t.Fatal(err)
	}
	if last := imgs[len(imgs)-1]; last.Name != FileISLvsOSL {
		t.Fatalf("rendered %s last, want the heat map", last.Name)
	}
}

// A sweep over more request rates than can be labelled one by one falls
// back to regular ticks with decimals: 2.5 req/s is no whole number.
func TestRateAxisIsNotInteger(t *testing.T) {
	loads := make([]float64, maxValueTicks+1)
	for i := range loads {
		loads[i] = 0.5 * float64(i+1)
	}
	if m, ok := loadTicks(metrics.ParamRate, loads, false).(linearTicks); !ok || m.integer {
		t.Errorf("many request rates get %#v, want non-integer linear ticks", m)
	}
}

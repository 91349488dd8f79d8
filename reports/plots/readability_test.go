package plots

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// sweepPlots builds every sweep plot of the fixture with every mark.
func sweepPlots(t *testing.T) map[string]*plot.Plot {
	t.Helper()
	g := gate(t, "ttft.p99 < 500ms")
	d := newSweepData(sweepResult(true, true), "concurrency", &g)
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

package plots

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// outDir is where a test writes its plots: t.TempDir(), or the folder in
// LLMBENCH_PLOTS_EXAMPLE when set, to look at the plots by eye.
func outDir(t *testing.T) string {
	if d := os.Getenv("LLMBENCH_PLOTS_EXAMPLE"); d != "" {
		return d
	}
	return t.TempDir()
}

// checkPNG decodes path and checks its size and that data was drawn:
// axes and text are black or grey, so coloured pixels mean a series.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	want := image.Rect(0, 0, int(Width.Dots(96)), int(Height.Dots(96)))
	if img.Bounds() != want {
		t.Errorf("%s: size %v, want %v", path, img.Bounds(), want)
	}
	if n := colouredPixels(img); n < 200 {
		t.Errorf("%s: only %d coloured pixels: nothing plotted", path, n)
	}
}

func colouredPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 40<<8 {
				n++
			}
		}
	}
	return n
}

func names(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// writePointPlots draws d's point plots and writes them into dir, as a
// point's sink does.
func writePointPlots(dir string, title string, d *PointData) ([]string, error) {
	imgs, err := RenderPointPlots(title, d)
	if err != nil {
		return nil, err
	}
	return WriteImages(dir, imgs)
}

func TestWritePointPlotsStreaming(t *testing.T) {
	paths, err := writePointPlots(outDir(t), "test-model · concurrency 16", pointData(streamingRecords(3000)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{FileTTFT, FileLatency, FileTTFTvsISL, FileITLvsPos, FileISLvsOSL}
	if got := names(paths); !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	for _, p := range paths {
		checkPNG(t, p)
	}
}

// A non-streaming run without token counts has no chunk gaps and no
// lengths: only the two distributions are drawn.
func TestWritePointPlotsSkipsAbsentData(t *testing.T) {
	paths, err := writePointPlots(t.TempDir(), "", pointData(nonStreamingRecords(50)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(paths), []string{FileTTFT, FileLatency}; !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	failed := []metrics.Record{{Chunks: []int64{5}, Err: &metrics.Failure{Class: metrics.ErrHTTP}}}
	if paths, err := writePointPlots(t.TempDir(), "", pointData(failed)); err != nil || len(paths) != 0 {
		t.Fatalf("only failed records: wrote %v, %v; want nothing", paths, err)
	}
}

// Failed records never reach a plot: the fixture's failure has a 1000 s
// latency, which would stretch the latency histogram's axis.
func TestPointDataExcludesFailures(t *testing.T) {
	d := pointData(streamingRecords(10))
	if len(d.latency) != 10 || slices.Max(d.latency) > 1e5 {
		t.Fatalf("latencies %v include the failed request", d.latency)
	}
}

func TestWriteSweepPlots(t *testing.T) {
	paths, err := WriteSweepPlots(outDir(t), sweepResult(true, true))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chat-" + StemThroughputTTFT + ".png", "chat-" + StemThroughputITL + ".png",
		"chat-" + StemGoodput + ".png", "chat-" + StemRepeats + ".png"}
	if got := names(paths); !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	for _, p := range paths {
		checkPNG(t, p)
	}
}

// Without goodput SLOs or repeats only the two curves are drawn.
func TestWriteSweepPlotsSkipsAbsentData(t *testing.T) {
	paths, err := WriteSweepPlots(t.TempDir(), sweepResult(false, false))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chat-" + StemThroughputTTFT + ".png", "chat-" + StemThroughputITL + ".png"}
	if got := names(paths); !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	one := sweepResult(false, false)
	one.Points = one.Points[:1]
	if paths, err := WriteSweepPlots(t.TempDir(), one); err != nil || len(paths) != 0 {
		t.Fatalf("single point: wrote %v, %v; want nothing", paths, err)
	}
}

// The knee is the last load meeting the gate; the saturation point is the
// runtime's, found among the points after sorting by load.
func TestSweepMarks(t *testing.T) {
	res := sweepResult(false, false)
	slices.Reverse(res.Points) // run order need not be load order
	res.Capacity.Saturation.Point = len(res.Points) - 1 - 5
	d := newSweepData(withKnee(t, res, "ttft.p99 < 500ms"))
	// p99 TTFT is 60 ms·1.6^i: 393 ms at c=16 (i=4), 629 ms at c=32.
	if d.knee != 4 || d.pts[d.knee].load != 16 {
		t.Errorf("knee at %d, want 4 (c=16)", d.knee)
	}
	if d.saturation != 5 || d.pts[d.saturation].load != 32 {
		t.Errorf("saturation at %d, want 5 (c=32)", d.saturation)
	}
	if d := newSweepData(withKnee(t, res, "ttft.p99 < 100ms")); d.knee != 1 {
		t.Errorf("knee for ttft.p99 < 100ms at %d, want 1 (c=2)", d.knee)
	}
}

// Without a knee gate no knee is marked: the plots invent no SLO.
func TestSweepNoKneeWithoutGate(t *testing.T) {
	d := newSweepData(sweepResult(false, false))
	if d.knee != -1 || d.kneeName() != "" {
		t.Errorf("knee %d %q marked without a gate", d.knee, d.kneeName())
	}
	if d.saturation != 5 {
		t.Errorf("saturation at %d, want 5: it needs no gate", d.saturation)
	}
	if _, err := RenderSweepPlots(sweepResult(false, false)); err != nil {
		t.Fatal(err)
	}
}

// withKnee analyses res again (its points may have been reordered),
// keeping its saturation verdict, and marks the knee of gate src as
// check()'s knee() would.
func withKnee(t *testing.T, res *runtime.ExperimentResult, src string) *runtime.ExperimentResult {
	t.Helper()
	res.Capacity = runtime.AnalyzeCapacity(res, &runtime.Capacity{Saturation: res.Capacity.Saturation})
	k := res.Capacity.KneeFor(res, gate(t, src))
	res.Capacity.Knee = &k
	return res
}

func gate(t *testing.T, src string) metrics.Gate {
	t.Helper()
	g, err := metrics.ParseGate(src)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A run larger than the samples keeps a bounded, uniform sample: every
// request is seen, at most sampleRequests are kept, and the kept TTFTs
// span the run (the sample is not just its first requests).
func TestPointDataSamplesLargeRuns(t *testing.T) {
	d := NewPointData()
	n := sampleRequests + 150_000
	for i := range n {
		sent := int64(1e9)
		r := metrics.Record{ID: int64(i), Sent: sent, Chunks: []int64{sent + int64(i+1)*1000, sent + int64(i+1)*1000 + 5e6}, OutputTokens: 2}
		d.Add(&r)
	}
	if d.Seen != n || len(d.ttft) != sampleRequests || len(d.gapRequests) != sampleGaps {
		t.Fatalf("seen %d, kept %d requests and %d gap lists", d.Seen, len(d.ttft), len(d.gapRequests))
	}
	late := 0
	for _, v := range d.ttft {
		if v > metrics.TTFT.Display(float64(sampleRequests)*1000) {
			late++
		}
	}
	// 150k of 250k requests came after the first sampleRequests: about 60%
	// of a uniform sample.
	if frac := float64(late) / sampleRequests; frac < 0.55 || frac > 0.65 {
		t.Errorf("%.2f of the sample comes from after the first %d requests, want ~0.60", frac, sampleRequests)
	}
}

// The byte renderers give the very PNGs the file writers write, under
// the same names, so a caller can write once and embed the same bytes.
func TestRenderMatchesWrite(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteSweepPlots(dir, sweepResult(true, false))
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := RenderSweepPlots(sweepResult(true, false))
	if err != nil {
		t.Fatal(err)
	}
	points, err := RenderPointPlots("p", pointData(streamingRecords(200)))
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != len(paths) || len(points) != 5 {
		t.Fatalf("rendered %d sweep and %d point plots, wrote %d sweep plots", len(imgs), len(points), len(paths))
	}
	for i, img := range imgs {
		b, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if img.Name != filepath.Base(paths[i]) || !bytes.Equal(img.PNG, b) {
			t.Errorf("image %d (%s) differs from the file %s", i, img.Name, paths[i])
		}
	}
	for _, img := range points {
		if !bytes.HasPrefix(img.PNG, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", img.Name)
		}
	}
}

// analyze names its experiment after the model: a Hugging Face id's "/"
// must not turn the plot's name into a path into a folder that does not
// exist (every sweep plot was lost for `-m org/model`).
func TestWriteSweepPlotsModelID(t *testing.T) {
	res := sweepResult(false, false)
	res.Experiment.Name = "org/my\\model"
	dir := t.TempDir()
	paths, err := WriteSweepPlots(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"org_my_model-" + StemThroughputTTFT + ".png", "org_my_model-" + StemThroughputITL + ".png"}
	if got := names(paths); !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	for _, p := range paths {
		if filepath.Dir(p) != dir {
			t.Errorf("%s is not in %s", p, dir)
		}
		checkPNG(t, p)
	}
}

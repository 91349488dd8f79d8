package metrics

import (
	"math"
	"testing"
)

// GenAI-Perf's image-retrieval metrics, by hand: a request of 250 ms with
// 4 pictures has image_latency 62.5 ms and image_throughput 16 pictures/s.
func TestImageRates(t *testing.T) {
	perImage, perSecond, ok := imageRates(250e6, 4)
	if !ok || perImage != 62.5e6 || perSecond != 16 {
		t.Errorf("imageRates(250 ms, 4) = %g ns, %g/s, %v; want 62.5e6, 16", perImage, perSecond, ok)
	}
	if _, _, ok := imageRates(250e6, 0); ok {
		t.Error("no pictures: want no image rates")
	}
}

// The media distributions cover every completed request with content,
// counting 0 for one without media, even when the first media came late;
// the image rates only requests with pictures. A text-only run has none.
func TestMediaSummary(t *testing.T) {
	rec := func(id int64, latency int64, m Media) *Record {
		return &Record{ID: id, Sent: 1e9, Chunks: []int64{1e9 + latency/2, 1e9 + latency}, OutputTokens: 2, Media: m}
	}
	acc := NewAccumulator(Options{})
	acc.Add(rec(0, 100e6, Media{}))
	acc.Add(rec(1, 200e6, Media{Images: 2, ImageBytes: 1000}))
	acc.Add(rec(2, 300e6, Media{Images: 1, ImageBytes: 500, Audio: 1, AudioBytes: 64044, AudioSeconds: 2}))
	acc.Add(&Record{ID: 3, Sent: 1e9, Done: 2e9, Err: &Failure{Class: ErrHTTP, Status: 500}, Media: Media{Images: 9}})
	s := acc.Summary()
	m := s.Media
	if m == nil {
		t.Fatal("no media summary")
	}
	check := func(name string, d *Distribution, count int, avg float64) {
		t.Helper()
		if d == nil || d.Count != count || math.Abs(d.Avg-avg) > 1e-9 {
			t.Errorf("%s = %+v, want %d values averaging %g", name, d, count, avg)
		}
	}
	check("images", m.Images, 3, 1)
	check("image_bytes", m.ImageBytes, 3, 500)
	check("audio", m.Audio, 3, 1.0/3)
	check("audio_bytes", m.AudioBytes, 3, 64044.0/3)
	check("image_latency", m.ImageLatency, 2, (100e6+300e6)/2) // 200/2, 300/1 ms
	check("image_throughput", m.ImageThroughput, 2, (10.0+1/0.3)/2)
	if d := ImageLatency.Distribution(&s); d != m.ImageLatency {
		t.Error("the catalogue's image_latency does not read the summary's")
	}
	text := NewAccumulator(Options{})
	text.Add(rec(0, 100e6, Media{}))
	if got := text.Summary(); got.Media != nil || ImageCount.Distribution(&got) != nil {
		t.Errorf("text-only run: media %+v, want none", got.Media)
	}
}

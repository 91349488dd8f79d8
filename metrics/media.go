package metrics

// Media is what a multimodal request carried beside its text: its
// pictures and audio clips and their encoded bytes (before base64). ISL
// counts the text alone, as GenAI-Perf's does; these say the rest.
type Media struct {
	Images, ImageBytes int
	Audio, AudioBytes  int
	// AudioSeconds is the clips' total length, 0 when unknown.
	AudioSeconds float64
}

// Any reports whether the request carried a picture or a clip.
func (m Media) Any() bool { return m.Images > 0 || m.Audio > 0 }

// MediaSummary is a multimodal run's media per request, over the
// completed requests with content (0 for a request that carried none),
// and GenAI-Perf's image-retrieval metrics over those with pictures.
type MediaSummary struct {
	Images, ImageBytes, Audio, AudioBytes *Distribution
	// ImageThroughput is pictures per second of the request's latency
	// and ImageLatency its latency per picture (ns), GenAI-Perf's
	// image_throughput = num_images / latency_s and image_latency =
	// latency_ns / num_images; nil when no request carried a picture.
	ImageThroughput, ImageLatency *Distribution
}

// imageRates are GenAI-Perf's per-request image metrics of a request
// with pictures: its latency per picture (ns) and pictures per second.
func imageRates(latency int64, images int) (perImage, perSecond float64, ok bool) {
	if images <= 0 || latency <= 0 {
		return 0, 0, false
	}
	return float64(latency) / float64(images), float64(images) / (float64(latency) / 1e9), true
}

// mediaValues keeps what the media distributions need, one entry per
// request with content, from the first request that carried media on
// (earlier ones carried none: zeros are filled in then).
type mediaValues struct {
	seen   bool
	values []Media
}

func (v *mediaValues) add(m Media, before int) {
	if !v.seen && !m.Any() {
		return
	}
	if !v.seen {
		v.seen = true
		v.values = make([]Media, before, before+1024)
	}
	v.values = append(v.values, m)
}

// summary reduces the media; latencies holds each request's latency, in
// the order the media were added.
func (v *mediaValues) summary(latencies []int64) *MediaSummary {
	if !v.seen {
		return nil
	}
	var images, imageBytes, audio, audioBytes, perImage, perSecond []float64
	for i, m := range v.values {
		images = append(images, float64(m.Images))
		imageBytes = append(imageBytes, float64(m.ImageBytes))
		audio = append(audio, float64(m.Audio))
		audioBytes = append(audioBytes, float64(m.AudioBytes))
		if lat, ps, ok := imageRates(latencies[i], m.Images); ok {
			perImage = append(perImage, lat)
			perSecond = append(perSecond, ps)
		}
	}
	return &MediaSummary{
		Images: NewDistribution(images), ImageBytes: NewDistribution(imageBytes),
		Audio: NewDistribution(audio), AudioBytes: NewDistribution(audioBytes),
		ImageThroughput: NewDistribution(perSecond), ImageLatency: NewDistribution(perImage),
	}
}

// mediaDistribution reads one of a Summary's media distributions.
func mediaDistribution(pick func(*MediaSummary) *Distribution) func(*Summary) *Distribution {
	return func(s *Summary) *Distribution {
		if s.Media == nil {
			return nil
		}
		return pick(s.Media)
	}
}

// The media metrics (docs/metrics.md#multimodal): GenAI-Perf's
// image-retrieval pair, and the pictures, clips and bytes per request
// that are reported beside the text ISL. summary.json lists them only
// for a point that sent media (onlyWhenMeasured).
var (
	// ImageThroughput is pictures per second of request latency.
	ImageThroughput = &Metric{Name: "image_throughput", Kind: PerRequest, q: quantityThroughput,
		Unit: "images/s", Direction: HigherIsBetter, summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.ImageThroughput }),
		request: func(r *Record, d RequestMetrics) []float64 {
			_, ps, ok := imageRates(d.Latency, r.Media.Images)
			return some(ok && d.HasContent, ps)
		}}
	// ImageLatency is request latency per picture, ns.
	ImageLatency = &Metric{Name: "image_latency", Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Latency: true, summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.ImageLatency }),
		request: func(r *Record, d RequestMetrics) []float64 {
			lat, _, ok := imageRates(d.Latency, r.Media.Images)
			return some(ok && d.HasContent, lat)
		}}
	// ImageCount is the pictures a request carried.
	ImageCount = &Metric{Name: "image_count", Aliases: []string{"num_images"}, Kind: PerRequest, q: quantityAmount,
		Unit: "images", summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.Images }),
		request:      func(r *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(r.Media.Images)) }}
	// ImageBytes is the encoded bytes of a request's pictures.
	ImageBytes = &Metric{Name: "image_bytes", Kind: PerRequest, q: quantityAmount,
		Unit: "bytes", summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.ImageBytes }),
		request:      func(r *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(r.Media.ImageBytes)) }}
	// AudioCount is the audio clips a request carried.
	AudioCount = &Metric{Name: "audio_count", Aliases: []string{"num_audios"}, Kind: PerRequest, q: quantityAmount,
		Unit: "clips", summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.Audio }),
		request:      func(r *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(r.Media.Audio)) }}
	// AudioBytes is the encoded bytes of a request's clips.
	AudioBytes = &Metric{Name: "audio_bytes", Kind: PerRequest, q: quantityAmount,
		Unit: "bytes", summaryJSON: true, onlyWhenMeasured: true,
		distribution: mediaDistribution(func(m *MediaSummary) *Distribution { return m.AudioBytes }),
		request:      func(r *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(r.Media.AudioBytes)) }}
)

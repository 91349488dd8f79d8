package genaiperf

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// GenAI-Perf's image-retrieval metrics (ImageRetrievalMetrics), with its
// units: pictures per second of request latency, and latency per picture.
var (
	mImageThroughput = requestMetric{metrics.ImageThroughput, "images/sec"}
	mImageLatency    = requestMetric{metrics.ImageLatency, "ms/image"}
)

// MediaConfig is what input_config echoes of GenAI-Perf's image and audio
// flags.
type MediaConfig struct {
	ImageWidth, ImageHeight TokenDist
	ImageFormat             string
	ImageBatch              int
	AudioLengthMean         float64
	AudioLengthStddev       float64
	AudioFormat             string
	AudioDepths             []int
	AudioSampleRates        []float64
	AudioChannels           int
	AudioBatch              int
}

// audioConfig is input_config's audio section, in GenAI-Perf's key order
// (ConfigAudio), its defaults when the run set no media.
func audioConfig(m *MediaConfig) *object {
	if m == nil {
		m = &MediaConfig{AudioFormat: "wav", AudioDepths: []int{16}, AudioSampleRates: []float64{16}, AudioChannels: 1, AudioBatch: 1}
	}
	length := (&object{}).set("mean", numberOrInt(m.AudioLengthMean)).set("stddev", numberOrInt(m.AudioLengthStddev))
	depths := make([]any, len(m.AudioDepths))
	for i, d := range m.AudioDepths {
		depths[i] = d
	}
	rates := make([]any, len(m.AudioSampleRates))
	for i, r := range m.AudioSampleRates {
		rates[i] = numberOrInt(r)
	}
	return (&object{}).
		set("batch_size", m.AudioBatch).
		set("length", length).
		set("format", m.AudioFormat).
		set("depths", depths).
		set("sample_rates", rates).
		set("num_channels", m.AudioChannels)
}

// imageConfig is input_config's image section (ConfigImage).
func imageConfig(m *MediaConfig) *object {
	if m == nil {
		m = &MediaConfig{ImageFormat: "png", ImageBatch: 1}
	}
	return (&object{}).
		set("width", meanStddev(m.ImageWidth.Mean, m.ImageWidth.Stddev)).
		set("height", meanStddev(m.ImageHeight.Mean, m.ImageHeight.Stddev)).
		set("batch_size", m.ImageBatch).
		set("format", m.ImageFormat)
}

// numberOrInt writes a whole number as an int (GenAI-Perf's defaults are
// ints), anything else as a float.
func numberOrInt(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return int(v)
	}
	return v
}

// mediaLine says what a multimodal run's requests carried beside the
// text that ISL counts; "" for a text-only run:
//
//	Media per request: 2.00 images (672,143 bytes), 1.00 audio clips (64,044 bytes)
func mediaLine(m *metrics.MediaSummary) string {
	if m == nil {
		return ""
	}
	var parts []string
	if m.Images != nil && m.Images.Max > 0 {
		parts = append(parts, fmt.Sprintf("%s images (%s bytes)", pyComma2(m.Images.Avg), pyComma0(m.ImageBytes.Avg)))
	}
	if m.Audio != nil && m.Audio.Max > 0 {
		parts = append(parts, fmt.Sprintf("%s audio clips (%s bytes)", pyComma2(m.Audio.Avg), pyComma0(m.AudioBytes.Avg)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Media per request (avg; ISL counts the text alone): " + strings.Join(parts, ", ") + "\n"
}

// pyComma0 renders a count with thousands separators and no decimals.
func pyComma0(v float64) string { return strings.TrimSuffix(pyComma2(math.Round(v)), ".00") }

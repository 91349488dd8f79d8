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

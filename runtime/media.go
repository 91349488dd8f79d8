package runtime

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// mediaParts are an entry's pictures and clips as a request carries them.
func mediaParts(en dataset.Entry) ([]string, []transport.AudioClip) {
	var images []string
	for _, img := range en.Images {
		images = append(images, img.URL)
	}
	var clips []transport.AudioClip
	for _, a := range en.Audio {
		clips = append(clips, transport.AudioClip{Data: a.Data, Format: a.Format})
	}
	return images, clips
}

// mediaCounts is what an entry's records report beside its text tokens.
func mediaCounts(en dataset.Entry) metrics.Media {
	var m metrics.Media
	for _, img := range en.Images {
		m.Images++
		m.ImageBytes += img.Bytes
	}
	for _, a := range en.Audio {
		m.Audio++
		m.AudioBytes += a.Bytes
		m.AudioSeconds += a.Seconds
	}
	return m
}

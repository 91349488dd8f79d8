package gpconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// mediaFlags are the configuration's input.image and input.audio
// settings as flags; mediaArgs reads them all, so none is listed as not
// carried over.
var mediaFlags = []string{"image-width-mean", "image-width-stddev", "image-height-mean", "image-height-stddev",
	"image-format", "batch-size-image", "audio-length-mean", "audio-length-stddev", "audio-format",
	"audio-sample-rates", "audio-depths", "audio-num-channels", "batch-size-audio"}

// mediaArgs are synthetic()'s images = image(...) and audio = audio(...)
// for the pictures and clips the configuration asks for (GenAI-Perf adds
// pictures when both width and height means are > 0, clips when the
// length mean is), none otherwise.
func (w *scenarioWriter) mediaArgs() []string {
	f := w.f
	defer f.ignore(mediaFlags...)
	var args []string
	if width, height := f.get("image-width-mean"), f.get("image-height-mean"); positive(width) && positive(height) {
		img := []string{"width = " + dist(width, f.get("image-width-stddev")), "height = " + dist(height, f.get("image-height-stddev"))}
		if format := f.get("image-format"); format != "" {
			img = append(img, fmt.Sprintf("format = %q", strings.ToLower(format)))
		}
		if n := f.get("batch-size-image"); n != "" && n != "1" {
			img = append(img, "count = "+n)
		}
		args = append(args, "images = image("+strings.Join(img, ", ")+")")
	}
	if length := f.get("audio-length-mean"); positive(length) {
		clip := []string{"length = " + dist(length, f.get("audio-length-stddev"))}
		if format := f.get("audio-format"); format != "" {
			clip = append(clip, fmt.Sprintf("format = %q", strings.ToLower(format)))
		}
		if rates := listValues(f.all("audio-sample-rates")); rates != "" {
			clip = append(clip, "sample_rates = "+rates)
		}
		if depths := listValues(f.all("audio-depths")); depths != "" {
			clip = append(clip, "depths = "+depths)
		}
		if n := f.get("audio-num-channels"); n != "" && n != "1" {
			clip = append(clip, "channels = "+n)
		}
		if n := f.get("batch-size-audio"); n != "" && n != "1" {
			clip = append(clip, "count = "+n)
		}
		args = append(args, "audio = audio("+strings.Join(clip, ", ")+")")
	}
	return args
}

// positive reports whether a flag value is a number > 0.
func positive(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v > 0
}

// listValues writes a list flag (repeated, or comma-separated as the
// configuration's lists become) as a Starlark list, "" when unset.
func listValues(vs []string) string {
	var items []string
	for _, v := range vs {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				items = append(items, x)
			}
		}
	}
	if len(items) == 0 {
		return ""
	}
	return "[" + strings.Join(items, ", ") + "]"
}

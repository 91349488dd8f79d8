package builtins

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/dataset"
)

// imageValue is what image() returns and synthetic(images=) takes: the
// pictures every prompt carries (docs/scenarios.md#multimodal).
type imageValue struct {
	object
	spec dataset.ImageSpec
}

// audioValue is what audio() returns and synthetic(audio=) takes.
type audioValue struct {
	object
	spec dataset.AudioSpec
}

// image(width, height, format="png", count=1): synthetic pictures of
// sampled sizes in px (GenAI-Perf's --image-width-*/--image-height-*,
// --image-format, --batch-size-image), count per request.
func imageBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var width, height distArg
	format := oneOf("png", dataset.ImageFormats...)
	count := 1
	if err := unpack(b.Name(), args, kwargs, "width", &width, "height", &height, "format?", &format, "count?", &count); err != nil {
		return nil, err
	}
	if count < 1 {
		return nil, paramErrorf(b.Name(), "count", "got %d, want an int >= 1 (pictures per request)", count)
	}
	spec := dataset.ImageSpec{Width: width.dist, Height: height.dist, Format: format.value, Count: count}
	for _, side := range []struct {
		name string
		d    dataset.Dist
	}{{"width", width.dist}, {"height", height.dist}} {
		if m := side.d.Mean(); m < 1 || m > dataset.MaxImageSide {
			return nil, paramErrorf(b.Name(), side.name, "got a mean of %s px, want 1 to %d", num(m), dataset.MaxImageSide)
		}
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	attrs := starlark.StringDict{"format": str(spec.Format), "count": integer(count)}
	return &imageValue{object: newObject("image", spec.String(), attrs, true), spec: spec}, nil
}

// audio(length, format="wav", sample_rates=[16], depths=[16], channels=1,
// count=1): synthetic clips of Gaussian noise, length in seconds, sample
// rates in kHz (GenAI-Perf's --audio-* flags and --batch-size-audio).
func audioBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var length distArg
	format := oneOf("wav", "wav", "mp3")
	rates, depths := numberList{16}, numberList{16}
	channels, count := 1, 1
	if err := unpack(b.Name(), args, kwargs, "length", &length, "format?", &format, "sample_rates?", &rates,
		"depths?", &depths, "channels?", &channels, "count?", &count); err != nil {
		return nil, err
	}
	if format.value == "mp3" {
		return nil, paramError(b.Name(), "format", dataset.ErrMP3)
	}
	spec := dataset.AudioSpec{Length: length.dist, Format: format.value, SampleRates: rates, Channels: channels, Count: count}
	for i, d := range depths {
		if d != float64(int(d)) {
			return nil, paramErrorf(b.Name(), "depths", "at index %d: got %s, want 8, 16, 24 or 32", i, num(d))
		}
		spec.Depths = append(spec.Depths, int(d))
	}
	if err := checkAudio(b.Name(), spec); err != nil {
		return nil, err
	}
	attrs := starlark.StringDict{"format": str(spec.Format), "channels": integer(channels), "count": integer(count)}
	return &audioValue{object: newObject("audio", spec.String(), attrs, true), spec: spec}, nil
}

// checkAudio names the parameter at fault for each problem of spec.
func checkAudio(fn string, spec dataset.AudioSpec) error {
	switch m := spec.Length.Mean(); {
	case m < dataset.MinAudioSeconds || m > dataset.MaxAudioSeconds:
		return paramErrorf(fn, "length", "got a mean of %s s, want %s to %d s", num(m), num(dataset.MinAudioSeconds), dataset.MaxAudioSeconds)
	case spec.Channels != 1 && spec.Channels != 2:
		return paramErrorf(fn, "channels", "got %d, want 1 (mono) or 2 (stereo)", spec.Channels)
	case spec.Count < 1:
		return paramErrorf(fn, "count", "got %d, want an int >= 1 (clips per request)", spec.Count)
	}
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("%s: %w", fn, err)
	}
	return nil
}

// mediaArgs are synthetic()'s images= and audio= parameters.
type mediaArgs struct {
	images, audio starlark.Value
}

// specs checks the values given and returns their specs (nil: none).
func (m mediaArgs) specs(fn string) (*dataset.ImageSpec, *dataset.AudioSpec, error) {
	var img *dataset.ImageSpec
	var clip *dataset.AudioSpec
	switch v := m.images.(type) {
	case nil, starlark.NoneType:
	case *imageValue:
		img = &v.spec
	default:
		return nil, nil, paramErrorf(fn, "images", "got %s, want image(width=, height=, ...) or None", v.Type())
	}
	switch v := m.audio.(type) {
	case nil, starlark.NoneType:
	case *audioValue:
		clip = &v.spec
	default:
		return nil, nil, paramErrorf(fn, "audio", "got %s, want audio(length=, ...) or None", v.Type())
	}
	return img, clip, nil
}

// withMedia wraps a synthetic source with the pictures and clips asked
// for; the media draw from a seed of their own, derived from the prompts'.
func withMedia(src dataset.Synthetic, img *dataset.ImageSpec, clip *dataset.AudioSpec) dataset.Source {
	if img == nil && clip == nil {
		return src
	}
	return dataset.Media{Text: src, Images: img, Audio: clip, Seed: src.Seed ^ 0x6d656469}
}

// checkMediaPool refuses, when the scenario loads, pictures or clips that
// would not fit in memory (the rule Media.Build applies), naming what to
// lower.
func checkMediaPool(fn string, entries int, img *dataset.ImageSpec, clip *dataset.AudioSpec) error {
	images, audio := dataset.Media{Images: img, Audio: clip}.PoolBytes(entries)
	const gib = 1 << 30
	if images > dataset.MediaPoolLimit {
		return paramErrorf(fn, "images", "%d entries × %d pictures of about %s×%s px would take about %.1f GiB, want at most %d GiB: lower entries, count or the size",
			entries, img.Count, num(img.Width.Mean()), num(img.Height.Mean()), images/gib, dataset.MediaPoolLimit/gib)
	}
	if audio > dataset.MediaPoolLimit {
		return paramErrorf(fn, "audio", "%d entries × %d clips of about %s s would take up to %.1f GiB, want at most %d GiB: lower entries, count or the length",
			entries, clip.Count, num(clip.Length.Mean()), audio/gib, dataset.MediaPoolLimit/gib)
	}
	return nil
}

// errMediaAPI is why a dataset with pictures or clips needs a chat or
// image_retrieval endpoint.
var errMediaAPI = errors.New(`pictures and audio go in chat content parts (api="chat") or to an image-retrieval route (api="image_retrieval")`)

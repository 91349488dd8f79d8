package gpflags

import (
	"slices"
	"strings"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/transport"
)

// MediaFlags are GenAI-Perf's synthetic image and audio flags
// (docs/datasets.md#multimodal). Pictures are added when both width and
// height means are > 0, clips when the length mean is > 0, as GenAI-Perf
// decides; each entry of --num-dataset-entries gets its own.
type MediaFlags struct {
	ImageWidthMean    int     `help:"Mean width of synthetic images, px (with --image-height-mean > 0, each request carries --batch-size-image pictures)."`
	ImageWidthStddev  int     `help:"Standard deviation of the image width, px."`
	ImageHeightMean   int     `help:"Mean height of synthetic images, px."`
	ImageHeightStddev int     `help:"Standard deviation of the image height, px."`
	ImageFormat       string  `default:"png" help:"Encoding of synthetic images: png or jpeg."`
	BatchSizeImage    int     `default:"1" help:"Pictures per request."`
	AudioLengthMean   float64 `help:"Mean length of synthetic audio clips, s (> 0 adds --batch-size-audio clips of Gaussian noise to each request)."`
	AudioLengthStddev float64 `help:"Standard deviation of the clip length, s."`
	AudioFormat       string  `default:"wav" help:"Container of synthetic clips: wav (mp3 is refused: the Go standard library has no MP3 encoder)."`
	// The lists take GenAI-Perf's space-separated values (--audio-depths
	// 16 24: NormalizeArgs turns them into repeats), and comma-separated
	// ones (16,24), as config -f writes them.
	AudioSampleRates []float64 `help:"Sample rates each clip picks one of, kHz (default 16)."`
	AudioDepths      []int     `help:"Bit depths each clip picks one of: 8, 16, 24 or 32 (default 16)."`
	AudioNumChannels int       `default:"1" help:"Audio channels: 1 (mono) or 2 (stereo)."`
	BatchSizeAudio   int       `default:"1" help:"Audio clips per request."`
}

// Any reports whether the flags ask for synthetic pictures or clips.
func (m *MediaFlags) Any() bool { return m.wantsImages() || m.wantsAudio() }

// Depths and SampleRates are the lists clips pick from, GenAI-Perf's
// [16] when none was given.
func (m *MediaFlags) Depths() []int          { return orDefaultList(m.AudioDepths, 16) }
func (m *MediaFlags) SampleRates() []float64 { return orDefaultList(m.AudioSampleRates, 16) }

// wantsImages and wantsAudio say whether synthetic media are asked for.
func (m *MediaFlags) wantsImages() bool { return m.ImageWidthMean > 0 && m.ImageHeightMean > 0 }
func (m *MediaFlags) wantsAudio() bool  { return m.AudioLengthMean > 0 }

// imageSpec and audioSpec are the flags as dataset specs; nil when not
// asked for.
func (m *MediaFlags) imageSpec() *dataset.ImageSpec {
	if !m.wantsImages() {
		return nil
	}
	return &dataset.ImageSpec{
		Width:  dataset.Normal{Mu: float64(m.ImageWidthMean), Sigma: float64(m.ImageWidthStddev)},
		Height: dataset.Normal{Mu: float64(m.ImageHeightMean), Sigma: float64(m.ImageHeightStddev)},
		Format: strings.ToLower(m.ImageFormat), Count: m.BatchSizeImage,
	}
}

func (m *MediaFlags) audioSpec() *dataset.AudioSpec {
	if !m.wantsAudio() {
		return nil
	}
	return &dataset.AudioSpec{
		Length:      dataset.Normal{Mu: m.AudioLengthMean, Sigma: m.AudioLengthStddev},
		Format:      strings.ToLower(m.AudioFormat),
		SampleRates: m.SampleRates(), Depths: m.Depths(),
		Channels: m.AudioNumChannels, Count: m.BatchSizeAudio,
	}
}

func orDefaultList[T any](v []T, def T) []T {
	if len(v) == 0 {
		return []T{def}
	}
	return v
}

// withMedia adds the synthetic pictures and clips the flags ask for to
// the prompts.
func (c *Profile) withMedia(src dataset.Source) dataset.Source {
	m := &c.MediaFlags
	if !m.wantsImages() && !m.wantsAudio() {
		return src
	}
	return dataset.Media{Text: src, Images: m.imageSpec(), Audio: m.audioSpec(), Seed: uint64(c.RandomSeed) ^ 0x6d656469}
}

// mediaTypes are the endpoint types that carry pictures or clips: chat
// and GenAI-Perf's multimodal (content parts), image_retrieval (pictures
// only).
var mediaTypes = []string{"chat", "multimodal", "vision", string(transport.ImageRetrieval)}

// validateMedia refuses media flags no run can use, naming the flag.
func (c *Profile) validateMedia() error {
	m := &c.MediaFlags
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"--image-width-mean", float64(m.ImageWidthMean)}, {"--image-width-stddev", float64(m.ImageWidthStddev)},
		{"--image-height-mean", float64(m.ImageHeightMean)}, {"--image-height-stddev", float64(m.ImageHeightStddev)},
		{"--audio-length-mean", m.AudioLengthMean}, {"--audio-length-stddev", m.AudioLengthStddev},
	} {
		if !(f.v >= 0) {
			return failure.Inputf("%s: got %g, want >= 0", f.name, f.v)
		}
	}
	switch {
	case (m.ImageWidthMean > 0) != (m.ImageHeightMean > 0):
		return failure.Inputf("--image-width-mean and --image-height-mean: got %d and %d, want both > 0 for synthetic images (or both 0 for none)", m.ImageWidthMean, m.ImageHeightMean)
	case m.ImageWidthMean > dataset.MaxImageSide || m.ImageHeightMean > dataset.MaxImageSide:
		return failure.Inputf("--image-width-mean and --image-height-mean: got %d and %d, want at most %d px", m.ImageWidthMean, m.ImageHeightMean, dataset.MaxImageSide)
	case !slices.Contains(dataset.ImageFormats, strings.ToLower(m.ImageFormat)):
		return failure.Inputf("--image-format: got %q, want png or jpeg", m.ImageFormat)
	case m.BatchSizeImage < 1:
		return failure.Inputf("--batch-size-image: got %d, want >= 1", m.BatchSizeImage)
	case m.BatchSizeAudio < 1:
		return failure.Inputf("--batch-size-audio: got %d, want >= 1", m.BatchSizeAudio)
	case m.AudioLengthMean > 0 && m.AudioLengthMean < dataset.MinAudioSeconds || m.AudioLengthMean > dataset.MaxAudioSeconds:
		return failure.Inputf("--audio-length-mean: got %g s, want %g to %d s (or 0 for no audio)", m.AudioLengthMean, dataset.MinAudioSeconds, dataset.MaxAudioSeconds)
	case strings.EqualFold(m.AudioFormat, "mp3"):
		return failure.Inputf("--audio-format mp3: %w", dataset.ErrMP3)
	case !strings.EqualFold(m.AudioFormat, "wav"):
		return failure.Inputf("--audio-format: got %q, want wav", m.AudioFormat)
	case m.AudioNumChannels != 1 && m.AudioNumChannels != 2:
		return failure.Inputf("--audio-num-channels: got %d, want 1 (mono) or 2 (stereo)", m.AudioNumChannels)
	}
	for _, r := range m.AudioSampleRates {
		if !(r*1000 >= 1 && r <= 384) {
			return failure.Inputf("--audio-sample-rates: got %g kHz, want 0.001 to 384 kHz", r)
		}
	}
	for _, d := range m.AudioDepths {
		if !slices.Contains(dataset.AudioDepths, d) {
			return failure.Inputf("--audio-depths: got %d bits, want 8, 16, 24 or 32", d)
		}
	}
	if err := c.checkMediaPool(); err != nil {
		return err
	}
	return c.checkMediaUse()
}

// checkMediaPool refuses, before anything is drawn, pictures or clips
// that would not fit in memory, naming the flags to lower.
func (c *Profile) checkMediaPool() error {
	m := &c.MediaFlags
	pool := dataset.Media{Images: m.imageSpec(), Audio: m.audioSpec()}
	if pool.Audio != nil && pool.Audio.Validate() != nil {
		return nil // refused by name above, or by the dataset
	}
	images, audio := pool.PoolBytes(c.NumDatasetEntries)
	const gib = 1 << 30
	switch {
	case images > dataset.MediaPoolLimit:
		return failure.Inputf("--num-dataset-entries %d × --batch-size-image %d pictures of %d×%d px would take about %.1f GiB, want at most %d GiB: "+
			"lower one of them or --image-width-mean/--image-height-mean", c.NumDatasetEntries, m.BatchSizeImage, m.ImageWidthMean, m.ImageHeightMean,
			images/gib, dataset.MediaPoolLimit/gib)
	case audio > dataset.MediaPoolLimit:
		return failure.Inputf("--num-dataset-entries %d × --batch-size-audio %d clips of %g s would take up to %.1f GiB, want at most %d GiB: "+
			"lower one of them, --audio-length-mean, --audio-sample-rates or --audio-depths", c.NumDatasetEntries, m.BatchSizeAudio, m.AudioLengthMean,
			audio/gib, dataset.MediaPoolLimit/gib)
	}
	return nil
}

// checkMediaUse refuses media where the run cannot send them, and an
// image_retrieval run without pictures.
func (c *Profile) checkMediaUse() error {
	m := &c.MediaFlags
	synthetic := m.wantsImages() || m.wantsAudio()
	typ := c.EndpointType
	switch {
	case synthetic && !slices.Contains(mediaTypes, typ):
		return failure.Inputf("--endpoint-type %s: synthetic images and audio (--image-*, --audio-*) go in chat content parts: "+
			"use --endpoint-type multimodal (or chat, or image_retrieval for pictures alone)", typ)
	case typ == string(transport.ImageRetrieval) && m.wantsAudio():
		return failure.Inputf("--audio-length-mean: --endpoint-type image_retrieval sends pictures only")
	case typ == string(transport.ImageRetrieval) && !m.wantsImages() && c.InputFile == "":
		return failure.Inputf("--endpoint-type image_retrieval: no pictures to send: give --image-width-mean and --image-height-mean, " +
			"or an --input-file whose lines have an image field")
	case typ == string(transport.ImageRetrieval) && c.Streaming:
		return failure.Inputf("--streaming: not supported for --endpoint-type image_retrieval (its answer is one response), as in GenAI-Perf")
	case synthetic && (c.SessionMode() || strings.HasPrefix(c.InputFile, "payload:")):
		return failure.Inputf("--image-* and --audio-*: synthetic media go with single-turn prompts (synthetic or an --input-file FILE.jsonl), " +
			"not with sessions or a payload file")
	}
	return nil
}

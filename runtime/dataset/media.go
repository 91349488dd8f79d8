package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Image is one picture an entry sends: an image_url content part of a
// chat request (GenAI-Perf's multimodal) or an input of an image
// retrieval request.
type Image struct {
	// URL is what the request carries: a data URL
	// ("data:image/png;base64,...") or, from an input file, a remote
	// http(s) URL the server fetches itself.
	URL string
	// Width and Height are the picture's size in pixels, 0 when unknown
	// (a remote URL).
	Width, Height int
	// Bytes is the encoded picture's size before base64, 0 for a remote
	// URL: what reports add up per request beside the text's tokens.
	Bytes int
}

// Audio is one clip an entry sends as OpenAI's input_audio content part.
type Audio struct {
	// Data is the encoded clip in base64, Format its container ("wav" or
	// "mp3"), as input_audio carries them.
	Data, Format string
	// Seconds is the clip's length, 0 when unknown.
	Seconds float64
	// Bytes is the encoded clip's size before base64.
	Bytes int
}

// Media adds synthetic images and audio clips to every entry of a text
// source: GenAI-Perf's --image-* and --audio-* flags, a scenario's
// synthetic(images = image(...), audio = audio(...)). Every image and
// clip of the dataset is drawn apart, so no two are alike (see
// ImageSpec) and a server's multimodal cache gets no more hits than its
// prefix cache gets from the prompts, which cycle the same way.
type Media struct {
	Text   Source
	Images *ImageSpec // nil: no images
	Audio  *AudioSpec // nil: no audio
	Seed   uint64
}

// MediaPoolLimit bounds the encoded bytes one dataset's images and clips
// may take, estimated from the means before anything is drawn (PoolBytes):
// the request bodies hold each again in base64.
const MediaPoolLimit = 2 << 30

// PoolBytes estimates the encoded bytes of the pictures and of the clips
// a dataset of n entries holds, from the means (an upper bound for the
// clips: the largest rate and depth offered).
func (m Media) PoolBytes(n int) (images, audio float64) {
	if m.Images != nil {
		images = float64(n*m.Images.count()) * m.Images.meanBytes()
	}
	if m.Audio != nil {
		audio = float64(n*m.Audio.count()) * m.Audio.meanBytes()
	}
	return images, audio
}

// Validate reports every problem with the description, each naming the
// scenario field at fault.
func (m Media) Validate() error {
	var errs []error
	if m.Text == nil {
		errs = append(errs, errors.New("media: no text source"))
	}
	if m.Images != nil {
		errs = append(errs, m.Images.Validate())
	}
	if m.Audio != nil {
		errs = append(errs, m.Audio.Validate())
	}
	return errors.Join(errs...)
}

// Build draws the text entries, then gives each its images and clips.
// Sizes, lengths and each picture's seed are drawn in entry order from
// one generator; the encoding runs on all cores; the result depends on
// the seed only.
func (m Media) Build(n int) ([]Entry, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	entries, err := m.Text.Build(n)
	if err != nil {
		return nil, err
	}
	if err := m.checkPool(len(entries)); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x3c6ef372fe94f82b))
	var images []imagePlan
	var clips []audioPlan
	for range entries {
		if m.Images != nil {
			for range m.Images.count() {
				images = append(images, m.Images.plan(rng))
			}
		}
		if m.Audio != nil {
			for range m.Audio.count() {
				clips = append(clips, m.Audio.plan(rng))
			}
		}
	}
	drawnImages := make([]Image, len(images))
	if err := parallel(len(images), func(i int) (err error) {
		drawnImages[i], err = images[i].draw()
		return err
	}); err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	drawnClips := make([]Audio, len(clips))
	_ = parallel(len(clips), func(i int) error {
		drawnClips[i] = clips[i].draw()
		return nil
	})
	for i := range entries {
		if m.Images != nil {
			k := m.Images.count()
			entries[i].Images = append(entries[i].Images[:len(entries[i].Images):len(entries[i].Images)], drawnImages[i*k:(i+1)*k]...)
		}
		if m.Audio != nil {
			k := m.Audio.count()
			entries[i].Audio = append(entries[i].Audio[:len(entries[i].Audio):len(entries[i].Audio)], drawnClips[i*k:(i+1)*k]...)
		}
	}
	return entries, nil
}

// checkPool refuses a dataset whose images and clips would not fit in
// memory, naming the field to lower.
func (m Media) checkPool(entries int) error {
	imageBytes, audioBytes := m.PoolBytes(entries)
	if m.Images != nil {
		if b := imageBytes; b > MediaPoolLimit {
			return fmt.Errorf("images: %d entries × %d images of about %.0f×%.0f px would take about %.1f GiB; "+
				"want at most %d GiB: lower the entries, the image count or the size",
				entries, m.Images.count(), m.Images.Width.Mean(), m.Images.Height.Mean(), b/(1<<30), MediaPoolLimit>>30)
		}
	}
	if m.Audio != nil {
		if b := audioBytes; b > MediaPoolLimit {
			return fmt.Errorf("audio: %d entries × %d clips of about %.1f s would take about %.1f GiB; "+
				"want at most %d GiB: lower the entries, the clip count or the length",
				entries, m.Audio.count(), m.Audio.Length.Mean(), b/(1<<30), MediaPoolLimit>>30)
		}
	}
	return nil
}

func (m Media) String() string {
	var parts []string
	if m.Images != nil {
		parts = append(parts, "images="+m.Images.String())
	}
	if m.Audio != nil {
		parts = append(parts, "audio="+m.Audio.String())
	}
	// As the scenario writes it: synthetic(..., images = image(...)).
	text := m.Text.String()
	if head, ok := strings.CutSuffix(text, ")"); ok && len(parts) > 0 {
		return head + ", " + strings.Join(parts, ", ") + ")"
	}
	return text
}

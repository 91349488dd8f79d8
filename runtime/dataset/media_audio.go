package dataset

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// AudioSpec describes synthetic clips of Gaussian noise (GenAI-Perf's
// --audio-length-*, --audio-format, --audio-sample-rates, --audio-depths,
// --audio-num-channels, --batch-size-audio), drawn as GenAI-Perf's
// SyntheticAudioGenerator draws them.
type AudioSpec struct {
	// Length is the clip length in seconds, drawn again until it is at
	// least MinAudioSeconds (GenAI-Perf's rejection sampling), at most
	// MaxAudioSeconds.
	Length Dist
	// Format is "wav". GenAI-Perf also writes mp3, through libsndfile;
	// the standard library has no MP3 encoder, so mp3 is refused here
	// and recorded mp3 files go through an input file's audio field.
	Format string
	// SampleRates (kHz) and Depths (bits: 8, 16, 24 or 32) are the
	// values each clip picks one of, uniformly.
	SampleRates []float64
	Depths      []int
	// Channels is 1 (mono) or 2 (stereo).
	Channels int
	// Count is the number of clips per entry (default 1).
	Count int
}

// The bounds of a clip's length: GenAI-Perf's minimum, and a maximum that
// keeps one clip's samples well within memory.
const (
	MinAudioSeconds = 0.1
	MaxAudioSeconds = 600
)

// AudioDepths are the bit depths a clip may have, GenAI-Perf's.
var AudioDepths = []int{8, 16, 24, 32}

// ErrMP3 is why --audio-format mp3 and audio(format = "mp3") are refused.
var ErrMP3 = errors.New(`mp3 cannot be generated: the Go standard library has no MP3 encoder and llmbench takes no ` +
	`third-party one; use wav (GenAI-Perf's default), or send recorded .mp3 files through an input file's "audio" field`)

// Validate reports every problem, naming the scenario field.
func (s AudioSpec) Validate() error {
	var errs []error
	if err := ValidateDist(s.Length); err != nil {
		errs = append(errs, fmt.Errorf("audio length: %w", err))
	} else if m := s.Length.Mean(); m < MinAudioSeconds || m > MaxAudioSeconds {
		errs = append(errs, fmt.Errorf("audio length: got a mean of %s s, want %s to %d s", num(m), num(MinAudioSeconds), MaxAudioSeconds))
	}
	switch s.Format {
	case "wav":
	case "mp3":
		errs = append(errs, fmt.Errorf("audio format: %w", ErrMP3))
	default:
		errs = append(errs, fmt.Errorf("audio format: got %q, want wav", s.Format))
	}
	if len(s.SampleRates) == 0 {
		errs = append(errs, errors.New("audio sample_rates: want at least one rate in kHz"))
	}
	for _, r := range s.SampleRates {
		if !(r*1000 >= 1 && r <= 384) {
			errs = append(errs, fmt.Errorf("audio sample_rates: got %s kHz, want 0.001 to 384 kHz", num(r)))
		}
	}
	if len(s.Depths) == 0 {
		errs = append(errs, errors.New("audio depths: want at least one bit depth"))
	}
	for _, d := range s.Depths {
		if !slices.Contains(AudioDepths, d) {
			errs = append(errs, fmt.Errorf("audio depths: got %d bits, want 8, 16, 24 or 32", d))
		}
	}
	if s.Channels != 1 && s.Channels != 2 {
		errs = append(errs, fmt.Errorf("audio channels: got %d, want 1 (mono) or 2 (stereo)", s.Channels))
	}
	if s.Count < 0 {
		errs = append(errs, fmt.Errorf("audio count: got %d, want >= 1 clips per request", s.Count))
	}
	return errors.Join(errs...)
}

func (s AudioSpec) count() int { return max(s.Count, 1) }

func (s AudioSpec) String() string {
	rates := make([]string, len(s.SampleRates))
	for i, r := range s.SampleRates {
		rates[i] = num(r)
	}
	depths := make([]string, len(s.Depths))
	for i, d := range s.Depths {
		depths[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("audio(length=%s, format=%q, sample_rates=[%s], depths=[%s], channels=%d, count=%d)",
		s.Length, s.Format, strings.Join(rates, ", "), strings.Join(depths, ", "), s.Channels, s.count())
}

// meanBytes is one clip's expected size: the mean length at the largest
// rate and depth offered, an upper bound.
func (s AudioSpec) meanBytes() float64 {
	return s.Length.Mean() * slices.Max(s.SampleRates) * 1000 * float64(slices.Max(s.Depths)/8*s.Channels)
}

// audioPlan is one clip's drawn parameters and noise seed.
type audioPlan struct {
	seconds            float64
	rate, depth, chans int
	seed               uint64
}

func (s AudioSpec) plan(rng *rand.Rand) audioPlan {
	return audioPlan{
		seconds: clipLength(s.Length, rng),
		rate:    int(s.SampleRates[rng.IntN(len(s.SampleRates))] * 1000),
		depth:   s.Depths[rng.IntN(len(s.Depths))],
		chans:   s.Channels,
		seed:    rng.Uint64(),
	}
}

// clipLength draws until the length is at least MinAudioSeconds, as
// GenAI-Perf's _sample_positive_normal does, which keeps the
// distribution's shape above the bound; a distribution that almost never
// gets there ends at the bound after many draws instead of looping.
func clipLength(d Dist, rng *rand.Rand) float64 {
	for range 10000 {
		if v := d.Sample(rng); v >= MinAudioSeconds {
			return min(v, MaxAudioSeconds)
		}
	}
	return MinAudioSeconds
}

// draw makes the clip: Gaussian noise of standard deviation 0.3, clipped
// to [-1, 1] and scaled to the bit depth (GenAI-Perf's), in a WAV file.
func (p audioPlan) draw() Audio {
	rng := rand.New(rand.NewPCG(p.seed, p.seed^0xa54ff53a5f1d36f1))
	frames := int(p.seconds * float64(p.rate))
	samples := make([]float64, frames*p.chans)
	for i := range samples {
		samples[i] = math.Max(-1, math.Min(1, 0.3*rng.NormFloat64()))
	}
	wav := EncodeWAV(samples, p.rate, p.depth, p.chans)
	return Audio{Data: base64.StdEncoding.EncodeToString(wav), Format: "wav", Seconds: float64(frames) / float64(p.rate), Bytes: len(wav)}
}

// EncodeWAV writes interleaved samples in [-1, 1] as a PCM WAV file
// (RIFF, format 1): scaled by 2^(depth-1)-1 and truncated toward zero as
// numpy's astype does; 8-bit samples are unsigned, offset by 128, as the
// WAV format defines them.
func EncodeWAV(samples []float64, rate, depth, channels int) []byte {
	width := depth / 8
	data := len(samples) * width
	b := make([]byte, 0, 44+data)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(36+data))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1) // PCM
	b = binary.LittleEndian.AppendUint16(b, uint16(channels))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*channels*width))
	b = binary.LittleEndian.AppendUint16(b, uint16(channels*width))
	b = binary.LittleEndian.AppendUint16(b, uint16(depth))
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(data))
	scale := math.Pow(2, float64(depth-1)) - 1
	for _, s := range samples {
		v := int64(s * scale)
		switch depth {
		case 8:
			b = append(b, byte(v+128))
		case 16:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 24:
			b = append(b, byte(v), byte(v>>8), byte(v>>16))
		default:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	return b
}

package dataset

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
)

// ImageSpec describes synthetic pictures (GenAI-Perf's --image-width-*,
// --image-height-*, --image-format, --batch-size-image).
//
// GenAI-Perf resizes one of four bundled photos, so two pictures of one
// size are the same picture and a server's multimodal cache (vLLM keys it
// by the picture's hash) serves every repeat. Here each picture is drawn
// apart, from its own seed: a grid of 8×8-pixel blocks of random colours
// over a random gradient, with a little noise on every pixel, which no
// two pictures share. Flat blocks alone would compress far better than a
// photo and pure noise not at all; with the grain a 512×512 picture is
// about 490 KB as PNG and 39 KB as JPEG, near what a photo of that size
// takes, so the bytes sent are of a realistic order.
type ImageSpec struct {
	// Width and Height are in pixels, each drawn as GenAI-Perf draws them:
	// int(|sample|), at least 1, at most MaxImageSide.
	Width, Height Dist
	// Format is "png" or "jpeg".
	Format string
	// Count is the number of pictures per entry (default 1).
	Count int
}

// MaxImageSide bounds a picture's width and height, so a typo cannot ask
// for a picture that does not fit in memory; 4096 px is more than any
// vision model of 2026 takes without tiling it down.
const MaxImageSide = 4096

// ImageFormats are the encodings pictures are made in: the standard
// library's encoders, GenAI-Perf's two formats.
var ImageFormats = []string{"png", "jpeg"}

// jpegQuality is PIL's default, what GenAI-Perf's pictures are saved at.
const jpegQuality = 75

// Validate reports every problem, naming the scenario field.
func (s ImageSpec) Validate() error {
	var errs []error
	for _, side := range []struct {
		name string
		d    Dist
	}{{"width", s.Width}, {"height", s.Height}} {
		if err := ValidateDist(side.d); err != nil {
			errs = append(errs, fmt.Errorf("image %s: %w", side.name, err))
		} else if m := side.d.Mean(); m <= 0 || m > MaxImageSide {
			errs = append(errs, fmt.Errorf("image %s: got a mean of %s px, want 1 to %d", side.name, num(m), MaxImageSide))
		}
	}
	if !isImageFormat(s.Format) {
		errs = append(errs, fmt.Errorf("image format: got %q, want %s", s.Format, strings.Join(ImageFormats, " or ")))
	}
	if s.Count < 0 {
		errs = append(errs, fmt.Errorf("image count: got %d, want >= 1 pictures per request", s.Count))
	}
	return errors.Join(errs...)
}

func isImageFormat(f string) bool { return f == "png" || f == "jpeg" }

func (s ImageSpec) count() int { return max(s.Count, 1) }

func (s ImageSpec) String() string {
	return fmt.Sprintf("image(width=%s, height=%s, format=%q, count=%d)", s.Width, s.Height, s.Format, s.count())
}

// meanBytes estimates one encoded picture's size: about one byte per
// pixel for these pictures in either format, a generous bound.
func (s ImageSpec) meanBytes() float64 {
	return math.Max(s.Width.Mean(), 1) * math.Max(s.Height.Mean(), 1)
}

// imagePlan is one picture's drawn size and seed, drawn in order so that
// the pictures can be encoded in any order.
type imagePlan struct {
	width, height int
	format        string
	seed          uint64
}

func (s ImageSpec) plan(rng *rand.Rand) imagePlan {
	return imagePlan{width: imageSide(s.Width.Sample(rng)), height: imageSide(s.Height.Sample(rng)), format: s.Format, seed: rng.Uint64()}
}

// imageSide is GenAI-Perf's _sample_random_positive_integer: the
// absolute value of the sample, truncated, at least 1 (and here at most
// MaxImageSide).
func imageSide(v float64) int {
	return int(min(max(math.Abs(v), 1), MaxImageSide))
}

// draw paints and encodes the picture.
func (p imagePlan) draw() (Image, error) {
	encoded, err := EncodeImage(Picture(p.width, p.height, p.seed), p.format)
	if err != nil {
		return Image{}, err
	}
	return Image{URL: DataURL(p.format, encoded), Width: p.width, Height: p.height, Bytes: len(encoded)}, nil
}

// Picture paints the synthetic picture of the seed: a gradient between
// two random colours, overlaid with 8×8-pixel blocks of random colours,
// with grain of up to ±grain on every channel of every pixel.
func Picture(width, height int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, seed^0xbb67ae8584caa73b))
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	from, to := randomColor(rng), randomColor(rng)
	const block = 8
	for by := 0; by < height; by += block {
		for bx := 0; bx < width; bx += block {
			t := float64(bx+by) / float64(width+height)
			c := blend(from, to, t)
			if rng.IntN(2) == 0 { // half the blocks are a colour of their own
				c = randomColor(rng)
			}
			fillBlock(img, bx, by, block, c)
		}
	}
	addGrain(img, rng)
	return img
}

// grain is the largest change the noise makes to a channel.
const grain = 8

// addGrain moves every channel of every pixel by a random amount in
// [-grain, grain].
func addGrain(img *image.RGBA, rng *rand.Rand) {
	pix := img.Pix
	for i := 0; i+3 < len(pix); i += 4 {
		v := rng.Uint64()
		for c := range 3 {
			d := int(v>>(8*c)&0xff)%(2*grain+1) - grain
			pix[i+c] = uint8(min(max(int(pix[i+c])+d, 0), 255))
		}
	}
}

func randomColor(rng *rand.Rand) color.RGBA {
	v := rng.Uint32()
	return color.RGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(v >> 16), A: 0xff}
}

func blend(a, b color.RGBA, t float64) color.RGBA {
	mix := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t) }
	return color.RGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

func fillBlock(img *image.RGBA, x0, y0, size int, c color.RGBA) {
	b := img.Bounds()
	for y := y0; y < min(y0+size, b.Max.Y); y++ {
		for x := x0; x < min(x0+size, b.Max.X); x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// pngEncoder compresses at zlib's fastest level: on these grainy
// pictures it gives files within 2% of the default level's in half the
// time (a 1024×1024 picture: 0.43 s instead of 0.9 s on one core).
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// EncodeImage encodes a picture with the standard library's png or jpeg
// encoder (JPEG at PIL's default quality, as GenAI-Perf saves them).
func EncodeImage(img image.Image, format string) ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = pngEncoder.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: jpegQuality})
	default:
		err = fmt.Errorf("unknown image format %q, want png or jpeg", format)
	}
	return b.Bytes(), err
}

// DataURL is GenAI-Perf's form of an embedded picture:
// data:image/<format>;base64,<data>.
func DataURL(format string, encoded []byte) string {
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(encoded)
}

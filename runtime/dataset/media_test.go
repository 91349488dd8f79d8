package dataset

import (
	"bytes"
	"encoding/base64"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeDataURL decodes a picture of a data URL, checking its media type.
func decodeDataURL(t *testing.T, url, format string) image.Image {
	t.Helper()
	data, ok := strings.CutPrefix(url, "data:image/"+format+";base64,")
	if !ok {
		t.Fatalf("not a %s data URL: %.40s", format, url)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, got, err := image.Decode(bytes.NewReader(raw))
	if err != nil || got != format {
		t.Fatalf("decode: format %q, %v", got, err)
	}
	return img
}

// Pictures decode, in the format asked for, to exactly the sizes drawn:
// with stddev 0 the mean; every picture of the pool is different.
func TestImagesDecodeToRequestedSize(t *testing.T) {
	for _, format := range ImageFormats {
		m := Media{Text: Synthetic{Input: Fixed{N: 3}, Entries: 4}, Seed: 1,
			Images: &ImageSpec{Width: Normal{Mu: 33}, Height: Normal{Mu: 17}, Format: format, Count: 2}}
		entries, err := m.Build(0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if len(e.Images) != 2 {
				t.Fatalf("%s: %d pictures, want 2", format, len(e.Images))
			}
			for _, img := range e.Images {
				b := decodeDataURL(t, img.URL, format).Bounds()
				if b.Dx() != 33 || b.Dy() != 17 || img.Width != 33 || img.Height != 17 {
					t.Errorf("%s: picture %dx%d (recorded %dx%d), want 33x17", format, b.Dx(), b.Dy(), img.Width, img.Height)
				}
				raw, _ := base64.StdEncoding.DecodeString(img.URL[strings.Index(img.URL, ",")+1:])
				if img.Bytes != len(raw) {
					t.Errorf("Bytes %d, want the encoded size %d", img.Bytes, len(raw))
				}
				if seen[img.URL] {
					t.Errorf("%s: a picture repeats in the pool", format)
				}
				seen[img.URL] = true
			}
		}
	}
}

// Sizes follow GenAI-Perf's int(|gauss|), at least 1, at most MaxImageSide.
func TestImageSide(t *testing.T) {
	for v, want := range map[float64]int{-20.7: 20, 0.4: 1, 0: 1, 511.9: 511, 1e9: MaxImageSide} {
		if got := imageSide(v); got != want {
			t.Errorf("imageSide(%g) = %d, want %d", v, got, want)
		}
	}
}

// The same seed gives the same pool, byte for byte; another seed another.
func TestMediaPoolIsSeeded(t *testing.T) {
	build := func(seed uint64) []Entry {
		m := Media{Text: Synthetic{Input: Fixed{N: 2}, Entries: 3}, Seed: seed,
			Images: &ImageSpec{Width: Normal{Mu: 40, Sigma: 10}, Height: Normal{Mu: 30, Sigma: 5}, Format: "png"},
			Audio:  &AudioSpec{Length: Normal{Mu: 0.2, Sigma: 0.05}, Format: "wav", SampleRates: []float64{8, 16}, Depths: []int{8, 16, 24, 32}, Channels: 2}}
		entries, err := m.Build(0)
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
	a, b, c := build(5), build(5), build(6)
	for i := range a {
		if a[i].Images[0].URL != b[i].Images[0].URL || a[i].Audio[0].Data != b[i].Audio[0].Data {
			t.Errorf("entry %d: the same seed drew different media", i)
		}
		if a[i].Images[0].URL == c[i].Images[0].URL || a[i].Audio[0].Data == c[i].Audio[0].Data {
			t.Errorf("entry %d: another seed drew the same media", i)
		}
	}
}

// A clip is a WAV file of the drawn rate, depth, channels and length:
// 0.25 s at 16 kHz, 24-bit stereo is 4000 frames of 6 bytes.
func TestAudioClipIsWAV(t *testing.T) {
	m := Media{Text: Synthetic{Input: Fixed{N: 1}, Entries: 1},
		Audio: &AudioSpec{Length: Fixed{N: 0.25}, Format: "wav", SampleRates: []float64{16}, Depths: []int{24}, Channels: 2, Count: 3}}
	entries, err := m.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries[0].Audio) != 3 {
		t.Fatalf("%d clips, want 3", len(entries[0].Audio))
	}
	clip := entries[0].Audio[0]
	raw, err := base64.StdEncoding.DecodeString(clip.Data)
	if err != nil || clip.Format != "wav" || clip.Bytes != len(raw) {
		t.Fatalf("clip: format %q, %d bytes (recorded %d), %v", clip.Format, len(raw), clip.Bytes, err)
	}
	rate, data := WAVInfo(raw)
	if rate != 16000*2*3 || data != 4000*6 || len(raw) != 44+data || clip.Seconds != 0.25 {
		t.Errorf("byte rate %d, data %d, file %d, %g s; want 96000, 24000, 24044, 0.25 s", rate, data, len(raw), clip.Seconds)
	}
}

// The WAV samples are GenAI-Perf's scaling: v·(2^(d-1)-1) truncated,
// 8-bit offset by 128 as WAV's unsigned bytes.
func TestEncodeWAVSamples(t *testing.T) {
	b := EncodeWAV([]float64{1, -1, 0.5}, 8000, 8, 1)
	if got := b[44:]; !bytes.Equal(got, []byte{255, 1, 191}) {
		t.Errorf("8-bit samples %v, want [255 1 191]", got)
	}
	b = EncodeWAV([]float64{1, -1}, 8000, 16, 1)
	if got := b[44:]; !bytes.Equal(got, []byte{0xff, 0x7f, 0x01, 0x80}) {
		t.Errorf("16-bit samples % x, want ff 7f 01 80", got)
	}
}

// Bad descriptions are refused naming the field.
func TestMediaValidate(t *testing.T) {
	text := Synthetic{Input: Fixed{N: 1}}
	for _, c := range []struct {
		m    Media
		want string
	}{
		{Media{Text: text, Images: &ImageSpec{Width: Normal{Mu: -5}, Height: Fixed{N: 5}, Format: "png"}}, "image width: got a mean of -5 px"},
		{Media{Text: text, Images: &ImageSpec{Width: Fixed{N: 5}, Height: Fixed{N: 5}, Format: "gif"}}, `image format: got "gif", want png or jpeg`},
		{Media{Text: text, Images: &ImageSpec{Width: Fixed{N: 5e4}, Height: Fixed{N: 5}, Format: "png"}}, "want 1 to 4096"},
		{Media{Text: text, Audio: &AudioSpec{Length: Fixed{N: 1}, Format: "mp3", SampleRates: []float64{16}, Depths: []int{16}, Channels: 1}}, "no MP3 encoder"},
		{Media{Text: text, Audio: &AudioSpec{Length: Fixed{N: 1}, Format: "wav", SampleRates: []float64{16}, Depths: []int{12}, Channels: 1}}, "audio depths: got 12 bits"},
		{Media{Text: text, Audio: &AudioSpec{Length: Fixed{N: 0.05}, Format: "wav", SampleRates: []float64{16}, Depths: []int{16}, Channels: 1}}, "audio length: got a mean of 0.05 s"},
		{Media{Text: text, Audio: &AudioSpec{Length: Fixed{N: 1}, Format: "wav", SampleRates: []float64{16}, Depths: []int{16}, Channels: 3}}, "audio channels: got 3"},
		{Media{Text: Synthetic{Input: Fixed{N: 1}, Entries: 100000}, Images: &ImageSpec{Width: Fixed{N: 4096}, Height: Fixed{N: 4096}, Format: "png"}}, "would take about"},
	} {
		_, err := c.m.Build(0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.m, err, c.want)
		}
	}
}

// An input file's image and audio fields: a local PNG/JPEG becomes a data
// URL of its bytes, a URL is kept, a WAV or MP3 file becomes a clip;
// anything else is an error naming the file, line and field.
func TestJSONLMediaFields(t *testing.T) {
	dir := t.TempDir()
	png, _ := EncodeImage(Picture(20, 10, 1), "png")
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.png", png)
	write("a.wav", EncodeWAV(make([]float64, 800), 8000, 16, 1))
	write("a.mp3", []byte("ID3\x03\x00\x00\x00\x00\x00\x00"))
	write("notes.txt", []byte("hello"))
	write("ok.jsonl", []byte(`{"text": "look", "image": "a.png"}
{"text": "two", "image": ["a.png", "https://example.com/x.jpg"], "audio": ["a.wav", "a.mp3"]}
{"image": "a.png"}
`))
	entries, err := JSONL{Path: filepath.Join(dir, "ok.jsonl")}.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeDataURL(t, entries[0].Images[0].URL, "png").Bounds(); got.Dx() != 20 || got.Dy() != 10 || entries[0].Images[0].Bytes != len(png) {
		t.Errorf("picture %v, %d bytes", got, entries[0].Images[0].Bytes)
	}
	e := entries[1]
	if len(e.Images) != 2 || e.Images[1].URL != "https://example.com/x.jpg" || len(e.Audio) != 2 ||
		e.Audio[0].Format != "wav" || e.Audio[0].Seconds != 0.1 || e.Audio[1].Format != "mp3" {
		t.Errorf("line 2: %+v", e)
	}
	info, err := JSONL{Path: filepath.Join(dir, "ok.jsonl")}.Check()
	if err != nil || info.Media != 3 || entries[2].Text != "" || len(entries[2].Images) != 1 {
		t.Errorf("Check: %+v, %v; want 3 entries with media, the last of a picture alone", info, err)
	}
	for line, want := range map[string]string{
		`{"text": "x", "image": "missing.png"}`:   `bad.jsonl:1: image: cannot open missing.png`,
		`{"text": "x", "image": "notes.txt"}`:     `bad.jsonl:1: image: notes.txt: not a PNG or JPEG picture`,
		`{"text": "x", "image": 7}`:               `bad.jsonl:1: image: got number, want a file path or URL, or a list of them`,
		`{"text": "x", "audio": "a.png"}`:         `bad.jsonl:1: audio: a.png: not a WAV or MP3 file`,
		`{"text": "x", "image": "ftp://h/x.png"}`: `bad.jsonl:1: image: "ftp://h/x.png": want a local file or an http(s) URL`,
		`{"output_length": 5}`:                    `bad.jsonl:1: text: missing (want text or text_input, or an image or audio)`,
	} {
		write("bad.jsonl", []byte(line+"\n"))
		_, err := JSONL{Path: filepath.Join(dir, "bad.jsonl")}.Check()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", line, err, want)
		}
	}
}

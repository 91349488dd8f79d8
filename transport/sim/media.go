package sim

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads the sizes of the formats GenAI-Perf sends
	_ "image/png"
	"io"
	"strings"
)

// How the sim counts the tokens of pictures and audio clips, which it
// adds to the prompt's and so to its prefill time (docs/datasets.md#in-the-simulator):
//
//   - a picture is one token per 14×14-pixel patch, ceil(w/14)·ceil(h/14),
//     as ViT-L/14 encoders count them (LLaVA-1.5's 336×336 picture is
//     576 tokens); a picture given by a remote URL, which the sim does
//     not fetch, counts as 336×336;
//   - a clip is 25 tokens per second, as Whisper-style encoders (50
//     frames/s, pooled 2:1 as Qwen2-Audio does) give; a WAV clip's length
//     is read from its header, an MP3's estimated at 128 kbit/s.
const (
	imagePatch          = 14
	remoteImageSide     = 336
	audioTokensPerSec   = 25
	mp3BytesPerSecond   = 128000 / 8
	mediaHeaderToDecode = 4096 // base64 characters decoded to read a header
	// maxImageSide bounds a picture's declared size, so a header claiming
	// 2³¹ pixels a side cannot make a prefill of days.
	maxImageSide = 16384
)

// contentPart is one element of a chat message's content list.
type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
}

// partTokens counts one content part: a text part's words, a picture's
// patches, a clip's seconds. at names the part in errors.
func partTokens(p contentPart, at string) (int, error) {
	switch p.Type {
	case "image_url":
		if p.ImageURL == nil {
			return 0, fmt.Errorf(`%s: an image_url part needs "image_url": {"url": ...}`, at)
		}
		return imageTokens(p.ImageURL.URL, at+".image_url.url")
	case "input_audio":
		if p.InputAudio == nil {
			return 0, fmt.Errorf(`%s: an input_audio part needs "input_audio": {"data": ..., "format": ...}`, at)
		}
		return audioTokens(p.InputAudio.Data, p.InputAudio.Format, at+".input_audio")
	}
	return countWords(p.Text), nil
}

// imageTokens reads a picture's size from its data URL's header and
// counts its patches.
func imageTokens(url, at string) (int, error) {
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		return patches(remoteImageSide, remoteImageSide), nil
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok || !strings.HasPrefix(url, "data:image/") || !strings.HasSuffix(meta, ";base64") {
		return 0, fmt.Errorf("%s: want a data:image/...;base64, URL or an http(s) URL", at)
	}
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)))
	if err != nil {
		return 0, fmt.Errorf("%s: not a PNG or JPEG picture: %v", at, err)
	}
	if cfg.Width > maxImageSide || cfg.Height > maxImageSide {
		return 0, fmt.Errorf("%s: a %d×%d picture, larger than the sim takes (%d px a side)", at, cfg.Width, cfg.Height, maxImageSide)
	}
	return patches(cfg.Width, cfg.Height), nil
}

func patches(w, h int) int {
	return ((w + imagePatch - 1) / imagePatch) * ((h + imagePatch - 1) / imagePatch)
}

// audioTokens counts a clip by its length.
func audioTokens(data, format, at string) (int, error) {
	if data == "" {
		return 0, fmt.Errorf("%s.data: want the clip in base64", at)
	}
	var size, byteRate int // tokens = ceil(seconds · 25), seconds = size / byteRate
	switch format {
	case "wav":
		head, _ := io.ReadAll(io.LimitReader(base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)), mediaHeaderToDecode))
		var err error
		if byteRate, size, err = wavHeader(head); err != nil {
			return 0, fmt.Errorf("%s.data: %v", at, err)
		}
	case "mp3":
		size, byteRate = decodedSize(data), mp3BytesPerSecond
	default:
		return 0, fmt.Errorf(`%s.format: got %q, want "wav" or "mp3"`, at, format)
	}
	return (size*audioTokensPerSec + byteRate - 1) / byteRate, nil // in integers: 0.2 s is 5 tokens, not 6
}

// decodedSize is the number of bytes padded base64 data decodes to.
func decodedSize(data string) int {
	return base64.StdEncoding.DecodedLen(len(data)) - (len(data) - len(strings.TrimRight(data, "=")))
}

// wavHeader reads a WAV file's byte rate and data size from its chunks.
func wavHeader(b []byte) (byteRate, dataBytes int, err error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, 0, errors.New("not a WAV file (no RIFF/WAVE header)")
	}
	for i := 12; i+8 <= len(b); {
		id, size := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:i+8]))
		switch {
		case id == "fmt " && i+20 <= len(b):
			byteRate = int(binary.LittleEndian.Uint32(b[i+16 : i+20]))
		case id == "data" && byteRate > 0:
			return byteRate, size, nil
		}
		i += 8 + size + size%2
	}
	return 0, 0, errors.New(`WAV header without a "fmt " chunk before "data"`)
}

// messagePartsTokens counts a content list.
func messagePartsTokens(raw json.RawMessage, at string) (int, error) {
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return 0, fmt.Errorf("%s must be a string or a list of parts", at)
	}
	n := 0
	for k, p := range parts {
		t, err := partTokens(p, fmt.Sprintf("%s[%d]", at, k))
		if err != nil {
			return 0, err
		}
		n += t
	}
	return n, nil
}

// retrievalInputs checks an image-retrieval body (GenAI-Perf's
// IMAGE_RETRIEVAL: {"input": [{"type": "image_url", "url": ...}]}) and
// counts its pictures' tokens; it returns the number of pictures.
func retrievalInputs(raw json.RawMessage) (images, tokens int, err error) {
	var in []struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil || len(in) == 0 {
		return 0, 0, errors.New(`input must be a non-empty list of {"type": "image_url", "url": ...}`)
	}
	for i, p := range in {
		if p.Type != "image_url" {
			return 0, 0, fmt.Errorf(`input[%d].type: got %q, want "image_url"`, i, p.Type)
		}
		t, err := imageTokens(p.URL, fmt.Sprintf("input[%d].url", i))
		if err != nil {
			return 0, 0, err
		}
		tokens += t
	}
	return len(in), tokens, nil
}

// retrievalList is the sim's image-retrieval answer: one result per
// picture, in order, as NIM's v1/infer returns them.
type retrievalList struct {
	Data []retrieval `json:"data"`
}

type retrieval struct {
	Index         int            `json:"index"`
	BoundingBoxes map[string]any `json:"bounding_boxes"`
}

func retrievals(n int) retrievalList {
	out := retrievalList{Data: make([]retrieval, n)}
	for i := range out.Data {
		out.Data[i] = retrieval{Index: i, BoundingBoxes: map[string]any{}}
	}
	return out
}

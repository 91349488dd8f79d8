package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	_ "image/jpeg" // DecodeConfig knows the formats pictures may have
	_ "image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// maxMediaFile bounds one picture or clip an input file names, so a path
// to something huge is an error, not an out-of-memory.
const maxMediaFile = 64 << 20

// media reads a line's "image" and "audio" fields; a line with either
// needs no text (an image-retrieval input file has none). GenAI-Perf's "image"
// is a path or an http(s) URL; a list of them sends several per request.
// A local picture must be PNG or JPEG (GenAI-Perf's formats) and is sent
// as a data URL of the file's own bytes; a URL is sent as is, for the
// server to fetch. "audio" (llmbench's; GenAI-Perf's files have none)
// names local .wav or .mp3 files, sent as input_audio. A relative path is
// taken from the working directory, as GenAI-Perf does, else from the
// input file's folder.
func (r *record) media() ([]Image, []Audio, error) {
	imagePaths, err := r.paths("image")
	if err != nil {
		return nil, nil, err
	}
	audioPaths, err := r.paths("audio")
	if err != nil {
		return nil, nil, err
	}
	var images []Image
	for _, p := range imagePaths {
		img, err := r.loadImage(p)
		if err != nil {
			return nil, nil, err
		}
		images = append(images, img)
	}
	var clips []Audio
	for _, p := range audioPaths {
		clip, err := r.loadAudio(p)
		if err != nil {
			return nil, nil, err
		}
		clips = append(clips, clip)
	}
	return images, clips, nil
}

// paths reads a field that is a string or a list of strings.
func (r *record) paths(field string) ([]string, error) {
	raw, ok := r.get(field)
	if !ok {
		return nil, nil
	}
	var one string
	if raw[0] == '"' && json.Unmarshal(raw, &one) == nil {
		raw, _ = json.Marshal([]string{one})
	}
	var list []string
	if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, r.errorf(field, "got %s, want a file path or URL, or a list of them", jsonType(raw))
	}
	for i, p := range list {
		if strings.TrimSpace(p) == "" {
			return nil, r.errorf(field, "item %d is empty, want a file path or URL", i+1)
		}
		list[i] = strings.TrimSpace(p)
	}
	return list, nil
}

// loadImage makes one picture of the "image" field.
func (r *record) loadImage(p string) (Image, error) {
	u, err := url.Parse(p)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return Image{URL: p}, nil
	}
	if err == nil && u.Scheme != "" && len(u.Scheme) > 1 { // c:\... is a path
		return Image{}, r.errorf("image", "%q: want a local file or an http(s) URL with a host", p)
	}
	data, err := r.readMedia("image", p)
	if err != nil {
		return Image{}, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || !isImageFormat(format) {
		return Image{}, r.errorf("image", "%s: not a PNG or JPEG picture", p)
	}
	return Image{URL: DataURL(format, data), Width: cfg.Width, Height: cfg.Height, Bytes: len(data)}, nil
}

// loadAudio makes one clip of the "audio" field.
func (r *record) loadAudio(p string) (Audio, error) {
	data, err := r.readMedia("audio", p)
	if err != nil {
		return Audio{}, err
	}
	clip := Audio{Data: base64.StdEncoding.EncodeToString(data), Bytes: len(data)}
	switch {
	case isWAV(data):
		clip.Format, clip.Seconds = "wav", wavSeconds(data)
	case isMP3(data):
		clip.Format = "mp3"
	default:
		return Audio{}, r.errorf("audio", "%s: not a WAV or MP3 file", p)
	}
	return clip, nil
}

// readMedia reads a file the line names, relative to the working
// directory or else to the input file's folder.
func (r *record) readMedia(field, p string) ([]byte, error) {
	path := p
	if _, err := os.Stat(path); err != nil && !filepath.IsAbs(p) {
		if alt := filepath.Join(filepath.Dir(r.path), p); fileExists(alt) {
			path = alt
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, r.errorf(field, "cannot open %s: %v", p, err)
	}
	if st.Size() > maxMediaFile {
		return nil, r.errorf(field, "%s: %d bytes, want at most %d MiB", p, st.Size(), maxMediaFile>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, r.errorf(field, "cannot read %s: %v", p, err)
	}
	return data, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isWAV(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE"
}

// isMP3 recognises an ID3 tag or an MPEG audio frame sync.
func isMP3(b []byte) bool {
	return len(b) >= 3 && string(b[:3]) == "ID3" || len(b) >= 2 && b[0] == 0xff && b[1]&0xe0 == 0xe0
}

// wavSeconds is a WAV file's length from its byte rate and data chunk, 0
// when the header does not say.
func wavSeconds(b []byte) float64 {
	rate, data := WAVInfo(b)
	if rate == 0 {
		return 0
	}
	return float64(data) / float64(rate)
}

// WAVInfo walks a WAV file's chunks for the byte rate (of "fmt ") and the
// size of "data"; zeros when either is missing.
func WAVInfo(b []byte) (byteRate, dataBytes int) {
	if !isWAV(b) {
		return 0, 0
	}
	for i := 12; i+8 <= len(b); {
		id, size := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:i+8]))
		body := b[i+8:]
		switch {
		case id == "fmt " && len(body) >= 12:
			byteRate = int(binary.LittleEndian.Uint32(body[8:12]))
		case id == "data":
			dataBytes = min(size, len(body))
			return byteRate, dataBytes
		}
		i += 8 + size + size%2
	}
	return 0, 0
}

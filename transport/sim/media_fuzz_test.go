package sim

import (
	"encoding/base64"
	"testing"
)

// Whatever a client puts in a picture or a clip, the sim answers with a
// count or an error, never a panic or a count below zero.
func FuzzMediaTokens(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), "wav")
	f.Add([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00"), "wav")
	f.Add([]byte("\xff\xd8\xff\xe0"), "mp3")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		b64 := base64.StdEncoding.EncodeToString(data)
		if n, err := imageTokens("data:image/png;base64,"+b64, "x"); err == nil && n < 0 {
			t.Fatalf("picture: %d tokens", n)
		}
		if n, err := audioTokens(b64, format, "x"); err == nil && n < 0 {
			t.Fatalf("clip: %d tokens", n)
		}
		_, _ = messagePartsTokens(data, "x")
		_, _, _ = retrievalInputs(data)
	})
}

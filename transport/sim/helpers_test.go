package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fastConfig keeps tests quick and jitter-free.
func fastConfig() Config {
	c := DefaultConfig()
	c.TTFT = 2 * time.Millisecond
	c.PrefillPerToken = 0
	c.ITL = time.Millisecond
	c.ITLPerSeq = 0
	c.Jitter = 0
	c.Stall = 20 * time.Millisecond
	c.DefaultOutputTokens = 4
	c.Model = "test-model"
	return c
}

// startSim starts a server with fastConfig changed by edit and closes it
// when the test ends.
func startSim(t testing.TB, edit func(*Config)) *Server {
	t.Helper()
	cfg := fastConfig()
	if edit != nil {
		edit(&cfg)
	}
	s, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// post sends a JSON body with optional header pairs (name, value, ...).
func post(t testing.TB, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readEvents reads SSE `data:` payloads until the body ends; err is the
// read error that ended it, if any (a reset shows up here).
func readEvents(body io.Reader) (events []string, err error) {
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			events = append(events, data)
		} else if line != "" {
			return events, io.ErrUnexpectedEOF
		}
	}
	return events, sc.Err()
}

// chunk is the part of a stream event the tests look at.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Delta        map[string]string `json:"delta"`
		Text         *string           `json:"text"`
		FinishReason *string           `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func decodeChunk(t testing.TB, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("event %q: %v", data, err)
	}
	return c
}

func readAll(t testing.TB, r io.Reader) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatalf("read body: %v", err)
	}
	return b.Bytes()
}

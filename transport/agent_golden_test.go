package transport

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/streams")

// streamOutcome is what a recorded response becomes in a record, minus
// the timestamps: the content chunks' texts (so a dropped event or a
// merged one shows), the leading reasoning chunks, usage and the failure.
type streamOutcome struct {
	Chunks          []string        `json:"chunks"`
	ReasoningChunks int             `json:"reasoning_chunks"`
	Usage           metrics.Usage   `json:"usage"`
	Err             *outcomeFailure `json:"error,omitempty"`
}

type outcomeFailure struct {
	Class   metrics.ErrorClass `json:"class"`
	Status  int                `json:"status,omitempty"`
	Message string             `json:"message"`
}

func outcomeOf(rec *metrics.Record) streamOutcome {
	o := streamOutcome{Chunks: []string{}, ReasoningChunks: rec.ReasoningChunks, Usage: rec.Usage}
	start := 0
	for _, end := range rec.ChunkEnds {
		o.Chunks = append(o.Chunks, rec.Output[start:end])
		start = int(end)
	}
	if rec.Err != nil {
		o.Err = &outcomeFailure{rec.Err.Class, rec.Err.Status, rec.Err.Message}
	}
	return o
}

// Recorded-style Responses and Messages exchanges (testdata/streams: a
// .sse file is a stream, a .json file a whole response; the name's prefix
// is the API) are served from 127.0.0.1 and read by the client; what the
// record holds must equal the .golden file beside it (-update rewrites
// them).
func TestAgentStreamsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.*")
	for _, file := range files {
		ext := filepath.Ext(file)
		if ext != ".sse" && ext != ".json" {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(file), ext)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			stream := ext == ".sse"
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if stream {
					w.Header().Set("Content-Type", "text/event-stream")
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			api := API(strings.SplitN(name, "-", 2)[0])
			c, _ := newTestClient(t, Config{URL: srv.URL, API: api, Stream: stream})
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			got, _ := json.MarshalIndent(outcomeOf(&rec), "", "  ")
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ext) + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("record of %s\n got %s\nwant %s", file, got, want)
			}
		})
	}
}

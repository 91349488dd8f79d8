package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// Scripted Triton answers (testdata/triton: a .jsonl file is a
// ModelStreamInfer stream, one protojson ModelStreamInferResponse a line,
// after which the server closes the stream; a .json file is one
// ModelInfer response) are served from 127.0.0.1 and read by the triton
// client; what the record holds must equal the .golden file beside it
// (-update rewrites them).
func TestTritonStreamsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/triton/*.json*")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/triton")
	}
	for _, file := range files {
		ext := filepath.Ext(file)
		name := strings.TrimSuffix(filepath.Base(file), ext)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			srv, stream := scriptFor(t, data, ext == ".jsonl")
			c := newTritonTestClient(t, Config{URL: startTriton(t, srv), Stream: stream})
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{"model":"m","text_input":["hi"],"max_tokens":[4]}`), &rec)
			checkStamps(t, &rec)
			compareGolden(t, strings.TrimSuffix(file, ext)+".golden", outcomeOf(&rec))
		})
	}
}

// scriptFor is a server answering with the fixture's messages.
func scriptFor(t *testing.T, data []byte, stream bool) (*scriptedTriton, bool) {
	t.Helper()
	if !stream {
		var resp tritonpb.ModelInferResponse
		if err := protojson.Unmarshal(data, &resp); err != nil {
			t.Fatal(err)
		}
		return &scriptedTriton{unary: func(context.Context) (*tritonpb.ModelInferResponse, error) { return &resp, nil }}, false
	}
	var msgs []*tritonpb.ModelStreamInferResponse
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		m := &tritonpb.ModelStreamInferResponse{}
		if err := protojson.Unmarshal(sc.Bytes(), m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return &scriptedTriton{stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
		for _, m := range msgs {
			if err := s.Send(m); err != nil {
				return err
			}
		}
		return nil
	}}, true
}

// compareGolden compares got, as indented JSON, with a golden file.
func compareGolden(t *testing.T, golden string, got any) {
	t.Helper()
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(b) != string(want) {
		t.Errorf("record\n got %s\nwant %s", b, want)
	}
}

package paexport

import (
	"bytes"
	"os"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// FuzzRead feeds the profile_export.json importer arbitrary bytes, seeded
// with GenAI-Perf's example export and the preprocessing cases. An export
// is refused with an error, or read into one record and one prompt per
// request whose chunks are in time order, each ending further into the
// output, and which the metrics summarize (as `llmbench report` does).
func FuzzRead(f *testing.F) {
	example, err := os.ReadFile("testdata/example_profile_export.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(`{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[
	 {"timestamp":100,"request_inputs":{"payload":"{\"prompt\":[\"x\",\"y\"]}"},"response_timestamps":[110,120,130],
	  "response_outputs":[{"response":"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"te"},{"response":"xt\":\"b\"}]}\n\n"},
	  {"response":"{\"choices\":[{\"message\":{\"content\":\"c\",\"reasoning_content\":\"r\"}}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}"}]}],
	 "llmbench_failed_requests":[{"timestamp":200,"request_inputs":{"payload":"{\"input\":\"z\"}"},"response_timestamps":[],"response_outputs":[],
	  "error":{"class":"http","status":500,"message":"boom"}}]}],"service_kind":"openai"}`))
	f.Add([]byte(`{"experiments":[{"requests":[{"timestamp":100,"request_inputs":{"payload":"{}"},"response_timestamps":[90,80],"response_outputs":[{"response":"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}"},{"response":"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}"}]}]}]}`))
	f.Add([]byte(`{"experiments":[],"service_kind":"triton"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		exp, err := Read(bytes.NewReader(data))
		if err != nil {
			if exp != nil {
				t.Fatal("Read returned an export and an error")
			}
			return
		}
		if len(exp.Records) != len(exp.Prompts) {
			t.Fatalf("%d records, %d prompts", len(exp.Records), len(exp.Prompts))
		}
		for i, r := range exp.Records {
			if r.ID != int64(i) || r.Entry != i || len(r.ChunkEnds) != len(r.Chunks) || r.ReasoningChunks > len(r.Chunks) {
				t.Fatalf("record %d: %+v", i, r)
			}
			prevEnd, prevAt := int32(0), r.Sent
			for k, end := range r.ChunkEnds {
				if end <= prevEnd || r.Chunks[k] < prevAt {
					t.Fatalf("record %d chunk %d: ends at %d after %d, at %d ns after %d: want both increasing", i, k, end, prevEnd, r.Chunks[k], prevAt)
				}
				prevEnd, prevAt = end, r.Chunks[k]
			}
			if int(prevEnd) != len(r.Output) || len(r.Chunks) > 0 && r.Done < prevAt {
				t.Fatalf("record %d: chunks end at %d of %d output bytes, done at %d: %+v", i, prevEnd, len(r.Output), r.Done, r)
			}
		}
		_ = metrics.Summarize(exp.Records, metrics.Options{})
	})
}

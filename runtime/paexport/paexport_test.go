package paexport

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// The shared GenAI-Perf example (testdata/example_profile_export.json, a
// copy of ../shared/reference/genai-perf-examples/) was produced with a
// whitespace tokenizer; counting words reproduces its published metrics.
func TestReadGenAIPerfExample(t *testing.T) {
	f, err := os.Open("testdata/example_profile_export.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exp, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if exp.Mode != "concurrency" || exp.Value != 2 || len(exp.Records) != 2 {
		t.Fatalf("export = %+v", exp)
	}
	r0, r1 := exp.Records[0], exp.Records[1]
	// The role-only first response and [DONE] carry no content.
	if !slices.Equal(r0.Chunks, []int64{5000000, 8000000, 12000000}) || r0.Output != "I like dogs" {
		t.Errorf("request 0: chunks %v output %q", r0.Chunks, r0.Output)
	}
	if !slices.Equal(r1.Chunks, []int64{7000000, 11000000, 15000000}) || r1.Output != "I don't cook food at home" {
		t.Errorf("request 1: chunks %v output %q", r1.Chunks, r1.Output)
	}
	if exp.Prompts[0] != "a b c" || exp.Prompts[1] != "a b c d" {
		t.Errorf("prompts %q", exp.Prompts)
	}
	if !slices.Equal(exp.Models, []string{"my/model"}) {
		t.Errorf("models %q, want the payloads' my/model once", exp.Models)
	}
	for i := range exp.Records {
		exp.Records[i].InputTokens = len(strings.Fields(exp.Prompts[i]))
		exp.Records[i].OutputTokens = len(strings.Fields(exp.Records[i].Output))
	}
	s := metrics.Summarize(exp.Records, metrics.Options{})
	// profile_export_genai_perf.json of the same example.
	if s.RequestThroughput != 142.85714285714286 || s.OutputTokenThroughput != 642.8571428571429 {
		t.Errorf("throughputs %v %v", s.RequestThroughput, s.OutputTokenThroughput)
	}
	if got := s.InterTokenLatency.Scaled(1e-6); got.Avg != 2.55 || got.P90 != 3.31 || got.Min != 1.5999999999999999 {
		t.Errorf("ITL ms avg %v p90 %v min %v", got.Avg, got.P90, got.Min)
	}
	if got := s.TimeToFirstToken.Scaled(1e-6); got.Avg != 4.5 || got.P90 != 4.8999999999999995 {
		t.Errorf("TTFT ms avg %v p90 %v", got.Avg, got.P90)
	}
}

// GenAI-Perf's preprocessing: a response that splits an event is joined
// to the previous one (keeping its time); several events in one response
// are one chunk; undecodable and error events carry nothing.
func TestReadPreprocessing(t *testing.T) {
	export := `{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[
	 {"timestamp":100,"request_inputs":{"payload":"{\"prompt\":[\"x\",\"y\"]}"},
	  "response_timestamps":[110,120,130,140,150],
	  "response_outputs":[
	   {"response":"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"te"},
	   {"response":"xt\":\"b\"}]}\n\n"},
	   {"response":"data: {\"choices\":[{\"text\":\"c\"}]}\n\ndata: {\"choices\":[{\"text\":\"d\"}]}\n\n"},
	   {"response":"data: {broken\n\n"},
	   {"response":"data: [DONE]\n\n"}]}],
	 "llmbench_failed_requests":[
	 {"timestamp":200,"request_inputs":{"payload":"{\"prompt\":\"z\"}"},"response_timestamps":[],"response_outputs":[],
	  "error":{"class":"http","status":500,"message":"boom"}}]}],
	 "version":"x","service_kind":"openai","endpoint":"v1/completions"}`
	exp, err := Read(strings.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	r := exp.Records[0]
	if r.Output != "abcd" || !slices.Equal(r.Chunks, []int64{110, 130}) || r.Done != 150 || exp.Prompts[0] != "x y" {
		t.Errorf("record %+v prompt %q", r, exp.Prompts[0])
	}
	if f := exp.Records[1]; f.Err == nil || f.Err.Status != 500 || exp.Prompts[1] != "z" {
		t.Errorf("failed record %+v", f)
	}
}

// TestReadRefusesTimeTravel: a response stamped before its request or
// before the response ahead of it would give negative or shuffled time
// metrics; the export is refused naming the request and the response.
func TestReadRefusesTimeTravel(t *testing.T) {
	for stamps, want := range map[string]string{
		"[90, 120]":  "request 0: response 0 at 90 ns is before the request at 100 ns",
		"[110, 105]": "request 0: response 1 at 105 ns is before response 0 at 110 ns",
	} {
		export := `{"experiments":[{"requests":[{"timestamp":100,"request_inputs":{"payload":"{}"},"response_timestamps":` + stamps +
			`,"response_outputs":[{"response":"data: {\"choices\":[{\"text\":\"a\"}]}"},{"response":"data: {\"choices\":[{\"text\":\"b\"}]}"}]}]}]}`
		if _, err := Read(strings.NewReader(export)); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", stamps, err, want)
		}
	}
}

// A Triton export (perf_analyzer's triton service kind): the input
// tensors by name, one {"text_output": piece} per response, the empty
// final response carrying no content.
func TestReadTritonExport(t *testing.T) {
	const export = `{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[
{"timestamp":1000,"request_inputs":{"text_input":"a b c","max_tokens":3,"stream":true},
 "response_timestamps":[4000,6000,9000,9500],
 "response_outputs":[{"text_output":" I"},{"text_output":" like"},{"text_output":" dogs"},{"text_output":""}]}],
"window_boundaries":[1000,9500]}],"version":"2.41","service_kind":"triton","endpoint":""}`
	exp, err := Read(strings.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	r := exp.Records[0]
	if exp.ServiceKind != "triton" || !slices.Equal(r.Chunks, []int64{4000, 6000, 9000}) || r.Output != " I like dogs" ||
		!slices.Equal(r.ChunkEnds, []int32{2, 7, 12}) || r.Done != 9500 || r.Sent != 1000 {
		t.Errorf("record %+v", r)
	}
	if exp.Prompts[0] != "a b c" || len(exp.Models) != 0 {
		t.Errorf("prompt %q, models %q", exp.Prompts[0], exp.Models)
	}
	if _, err := Read(strings.NewReader(`{"experiments":[{}],"service_kind":"tensorrtllm_engine"}`)); err == nil ||
		!strings.Contains(err.Error(), "only openai and triton") {
		t.Errorf("unknown service kind: %v", err)
	}
}

package storedrun

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/paexport"
	"github.com/llmbench/llmbench/runtime/plan"
)

// ImportOptions says how to count an imported export's tokens, as
// GenAI-Perf counted them; the names are `report`'s and `compare`'s flags.
type ImportOptions struct {
	// Tokenizer is a tokenizer.json, folder or model id; "" for none.
	Tokenizer string
	// TokenCount is auto, tokenizer, usage or chunks ("" is auto: the
	// tokenizer when given, else usage).
	TokenCount string
}

// export is a profile_export.json read back, its records' ISL and OSL
// counted.
type export struct {
	Export   *paexport.Export
	Counting runtime.Counting
	// EndpointType is chat, completions or embeddings, from the endpoint
	// path the export names, or kserve for a Triton export.
	EndpointType string
	// Streaming is guessed from the records: a streamed request has
	// several chunks, a non-streaming one exactly one.
	Streaming bool
}

// readExport reads and counts the export at path. Every error is an Input
// failure naming the file or the option.
func readExport(path string, opt ImportOptions) (*export, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, failure.Inputf("%w", err)
	}
	exp, err := paexport.Read(f)
	f.Close()
	if err != nil {
		return nil, failure.Inputf("%s: %w", path, err)
	}
	counting, err := count(exp, opt)
	if err != nil {
		return nil, err
	}
	typ := endpointType(exp.Endpoint)
	if exp.ServiceKind == "triton" {
		typ = "kserve" // GenAI-Perf's endpoint type of Triton's gRPC API
	}
	return &export{Export: exp, Counting: counting, EndpointType: typ, Streaming: streamed(exp.Records)}, nil
}

// count fills every record's ISL and OSL with the chosen counting mode.
func count(exp *paexport.Export, opt ImportOptions) (runtime.Counting, error) {
	var tok runtime.Tokenizer
	if opt.Tokenizer != "" {
		t, err := runtime.LoadTokenizer(opt.Tokenizer)
		if err != nil {
			return runtime.Counting{}, failure.Inputf("--tokenizer: %w", err)
		}
		tok = t
	}
	mode, err := runtime.ParseCountMode(opt.TokenCount, tok != nil)
	if err != nil {
		return runtime.Counting{}, failure.Inputf("--token-count: %w", err)
	}
	reqs := make([]engine.Request, len(exp.Prompts))
	for i, p := range exp.Prompts {
		reqs[i] = engine.Request{Text: p, Words: len(strings.Fields(p))}
	}
	return runtime.CountTokens(exp.Records, reqs, mode, tok), nil
}

// endpointType is GenAI-Perf's endpoint type for an endpoint path.
func endpointType(endpoint string) string {
	switch {
	case strings.Contains(endpoint, "embeddings"):
		return "embeddings"
	case strings.HasSuffix(endpoint, "v1/completions"):
		return "completions"
	}
	return "chat"
}

// streamed guesses streaming from the records: a streamed request has
// several chunks, a non-streaming one exactly one at completion.
func streamed(recs []metrics.Record) bool {
	for _, r := range recs {
		if len(r.Chunks) > 1 {
			return true
		}
	}
	return false
}

// description describes the import for the GenAI-Perf writers.
func (im *export) description() genaiperf.Run {
	run := genaiperf.DefaultRun("imported")
	run.Subcommand = "report"
	run.Endpoint = im.Export.Endpoint
	run.EndpointType = im.EndpointType
	run.Streaming = im.Streaming
	if im.Export.ServiceKind == "triton" {
		run.ServiceKind = "triton"
	}
	if im.Export.Mode == "request_rate" {
		run.Stimulus = genaiperf.Stimulus{RequestRate: im.Export.Value}
	} else {
		run.Stimulus = genaiperf.Stimulus{Concurrency: int(im.Export.Value)}
	}
	run.TokenCounting = im.Counting.String()
	return run
}

// addExport imports the export at path: a perf_analyzer export as the
// run's one point, of one repeat whose records the export holds, or
// another tool's results (vllm bench serve, AIPerf, GuideLLM: readPeer),
// one point per load they ran.
func (r *Run) addExport(stderr io.Writer, path string, opt ImportOptions) error {
	if pr, ok, err := readPeer(path); ok || err != nil {
		if err == nil {
			r.addPeer(stderr, path, pr)
		}
		return err
	}
	im, err := readExport(path, opt)
	if err != nil {
		return err
	}
	exp := im.Export
	params := paramsOf(exp.Mode, exp.Value)
	p := &Point{Params: params, Desc: Description{Models: exp.Models, API: im.EndpointType, Stream: im.Streaming,
		TokenCounting: string(im.Counting.Mode), Load: loadText(params, ""), Imported: true}}
	p.Repeats = []*Repeat{{Index: 1, Path: path, Described: im.description(), Counting: im.Counting, Params: params, imported: exp.Records}}
	r.Points = []*Point{p}
	return nil
}

// exportNames are the files a tool's result folder is imported from, in
// the order looked for: perf_analyzer's (GenAI-Perf's) export, AIPerf's
// per-request records, GuideLLM's report (a vllm bench result is named
// by its run, so it is imported by its path).
var exportNames = []string{"profile_export.json", "profile_export.jsonl", "benchmarks.json"}

// ExportPath finds another tool's results to import: path itself when it
// is a JSON or JSON Lines file, or the first of exportNames inside the
// folder path.
func ExportPath(path string) (string, bool) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")) {
		return path, true
	}
	for _, name := range exportNames {
		candidate := filepath.Join(path, name)
		if st, err := os.Stat(candidate); err == nil && !st.IsDir() {
			return candidate, true
		}
	}
	return filepath.Join(path, exportNames[0]), false
}

// paramsOf is an export's load as point parameters.
func paramsOf(mode string, v float64) plan.Params {
	if mode == "request_rate" {
		return plan.Params{metrics.ParamRate: v}
	}
	return plan.Params{metrics.ParamConcurrency: v}
}

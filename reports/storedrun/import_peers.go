package storedrun

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/aiperf"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/guidellm"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/runtime/vllmbench"
)

// peerRun is another benchmark tool's run read back into records: one
// point per load it ran, its token counts that tool's.
type peerRun struct {
	// tool names it in the token-counting text: "vllm bench", "AIPerf".
	tool       string
	model, api string
	stream     bool
	points     []peerPoint
	// note is said on stderr when the run is imported ("" for none):
	// what the file could not say.
	note string
}

// peerPoint is one load of a peer run and its requests.
type peerPoint struct {
	params  plan.Params
	records []metrics.Record
}

// readPeer reads path when it is a result file of vllm bench serve,
// AIPerf or GuideLLM; ok is false for any other file (a perf_analyzer
// export, read by readExport).
func readPeer(path string) (pr *peerRun, ok bool, err error) {
	if filepath.Base(path) == aiperfSummary { // its records lie beside it
		path = filepath.Join(filepath.Dir(path), "profile_export.jsonl")
		if _, err := os.Stat(path); err != nil {
			return nil, true, failure.Inputf("%s holds AIPerf's statistics, not its requests: import the profile_export.jsonl AIPerf writes beside it (%w)", aiperfSummary, err)
		}
	}
	if strings.HasSuffix(path, ".jsonl") {
		pr, err = readAIPerf(path)
		return pr, true, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, failure.Inputf("%w", err)
	}
	switch {
	case vllmbench.Sniff(b):
		pr, err = readVLLMBench(b)
	case guidellm.Sniff(b):
		pr, err = readGuideLLM(b)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, failure.Inputf("%s: %w", path, err)
	}
	return pr, true, nil
}

// readVLLMBench reads a vllm bench result: its load is --max-concurrency
// when it had one, else --request-rate (a burst, "inf", is concurrency of
// every request at once).
func readVLLMBench(b []byte) (*peerRun, error) {
	res, err := vllmbench.Read(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	params := plan.Params{metrics.ParamConcurrency: float64(res.MaxConcurrency)}
	switch {
	case res.MaxConcurrency > 0:
	case !math.IsInf(res.RequestRate, 1):
		params = plan.Params{metrics.ParamRate: res.RequestRate}
	default:
		params = plan.Params{metrics.ParamConcurrency: float64(len(res.Records))}
	}
	api := "completions"
	if res.Backend == "openai-chat" {
		api = "chat"
	}
	return &peerRun{tool: "vllm bench", model: res.Model, api: api, stream: true,
		points: []peerPoint{{params, res.Records}}}, nil
}

// aiperfSummary is the name of AIPerf's run summary, read beside its
// per-request records for the run's load.
const aiperfSummary = "profile_export_aiperf.json"

// readAIPerf reads AIPerf's profile_export.jsonl and, when it lies beside
// it, the run's profile_export_aiperf.json for the load.
func readAIPerf(path string) (*peerRun, error) {
	jl, err := os.Open(path)
	if err != nil {
		return nil, failure.Inputf("%w", err)
	}
	defer jl.Close()
	first, _ := bufio.NewReader(jl).ReadBytes('\n')
	if !aiperf.Sniff(first) {
		return nil, failure.Inputf("%s: not an AIPerf profile_export.jsonl (its first line is no AIPerf request record)", path)
	}
	if _, err := jl.Seek(0, 0); err != nil {
		return nil, failure.Inputf("%w", err)
	}
	var summary io.Reader // nil when the run's summary is not beside it
	if s, err := os.Open(filepath.Join(filepath.Dir(path), aiperfSummary)); err == nil {
		defer s.Close()
		summary = s
	}
	res, err := aiperf.Read(jl, summary)
	if err != nil {
		return nil, failure.Inputf("%s: %w", path, err)
	}
	params := plan.Params{metrics.ParamConcurrency: float64(res.Concurrency)}
	if res.Concurrency == 0 && res.RequestRate > 0 {
		params = plan.Params{metrics.ParamRate: res.RequestRate}
	}
	pr := &peerRun{tool: "AIPerf", model: res.Model, api: cmp.Or(res.EndpointType, "chat"), stream: res.Streaming,
		points: []peerPoint{{params, res.Records}}}
	if summary == nil {
		pr.note = fmt.Sprintf("%s: no %s beside it, so its load is unknown", path, aiperfSummary)
	}
	return pr, nil
}

// readGuideLLM reads a GuideLLM report: one point per benchmark, its load
// the benchmark's concurrency, or its rate for a constant or Poisson one.
func readGuideLLM(b []byte) (*peerRun, error) {
	res, err := guidellm.Read(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	api := "chat"
	if res.API == "/v1/completions" {
		api = "completions"
	}
	pr := &peerRun{tool: "GuideLLM", model: res.Model, api: api, stream: res.Stream}
	var sampled []string
	for _, bm := range res.Benchmarks {
		params := plan.Params{metrics.ParamConcurrency: float64(bm.Concurrency)}
		if bm.Rate > 0 {
			params = plan.Params{metrics.ParamRate: bm.Rate}
		}
		if bm.Total > len(bm.Records) {
			sampled = append(sampled, fmt.Sprintf("%s kept %d of %d requests", loadText(params, ""), len(bm.Records), bm.Total))
		}
		pr.points = append(pr.points, peerPoint{params, bm.Records})
	}
	if len(sampled) > 0 {
		pr.note = "GuideLLM sampled requests (its sample_size): " + strings.Join(sampled, "; ") + "; the figures are over the sample"
	}
	return pr, nil
}

// addPeer imports a peer run, one point per load, each of one repeat
// whose records the file holds.
func (r *Run) addPeer(stderr io.Writer, path string, pr *peerRun) {
	if pr.note != "" {
		fmt.Fprintln(stderr, "llmbench: "+pr.note)
	}
	counting := runtime.Counting{Mode: runtime.ByTokenizer}
	for _, pp := range pr.points {
		run := genaiperf.DefaultRun("imported")
		run.Subcommand, run.EndpointType, run.Streaming = "report", pr.api, pr.stream
		run.TokenCounting = pr.tool + "'s tokenizer"
		run.Stimulus = genaiperf.Stimulus{Concurrency: int(pp.params[metrics.ParamConcurrency]), RequestRate: pp.params[metrics.ParamRate]}
		p := &Point{Params: pp.params, Desc: Description{Models: []string{pr.model}, API: pr.api, Stream: pr.stream,
			TokenCounting: string(counting.Mode), Load: loadText(pp.params, ""), Imported: true}}
		p.Repeats = []*Repeat{{Index: 1, Path: path, Described: run, Counting: counting, Params: pp.params, imported: pp.records}}
		r.Points = append(r.Points, p)
	}
}

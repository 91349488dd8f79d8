package storedrun

import (
	"bytes"
	"math"
	"os"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/runtime/vllmbench"
)

// readVLLMBench reads path when it is a `vllm bench serve` result; ok is
// false for any other file (a perf_analyzer export).
func readVLLMBench(path string) (res *vllmbench.Result, ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, failure.Inputf("%w", err)
	}
	if !vllmbench.Sniff(b) {
		return nil, false, nil
	}
	res, err = vllmbench.Read(bytes.NewReader(b))
	if err != nil {
		return nil, true, failure.Inputf("%s: %w", path, err)
	}
	for i := range res.Records {
		res.Records[i].KeepMetrics()
	}
	return res, true, nil
}

// addVLLMBench imports a vllm bench result as the run's one point: its
// load is --max-concurrency when it had one, else --request-rate (a
// burst, "inf", is concurrency of every request at once); ISL and OSL are
// what vllm bench counted with its tokenizer.
func (r *Run) addVLLMBench(path string, res *vllmbench.Result) {
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
	counting := runtime.Counting{Mode: runtime.ByTokenizer}
	run := genaiperf.DefaultRun("imported")
	run.Subcommand, run.EndpointType, run.Streaming, run.TokenCounting = "report", api, true, "vllm bench's tokenizer"
	run.Stimulus = genaiperf.Stimulus{Concurrency: int(params[metrics.ParamConcurrency]), RequestRate: params[metrics.ParamRate]}
	p := &Point{Params: params, Desc: Description{Models: []string{res.Model}, API: api, Stream: true,
		TokenCounting: string(counting.Mode), Load: loadText(params, ""), Imported: true}}
	p.Repeats = []*Repeat{{Index: 1, Path: path, Described: run, Counting: counting, Params: params, imported: res.Records}}
	r.Points = []*Point{p}
}

// Package guidellm reads GuideLLM's benchmarks.json back into request
// records, one set per benchmark (a GuideLLM sweep is several), so a
// GuideLLM run can be reported under every view and compared with
// llmbench runs. The format is GuideLLM 0.8's report (metadata.version 2):
// each benchmark's strategy, and its requests split into successful,
// errored and incomplete, each with its timings in seconds.
//
// GuideLLM keeps, per request, only when its first and last token
// arrived and how many token iterations there were, not each chunk's
// time: the chunks between are spread evenly between the two, so a
// request's mean inter-token latency is exact and the spread of its
// chunk gaps is not measured.
package guidellm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// Benchmark is one GuideLLM benchmark: one load, its requests.
type Benchmark struct {
	// Strategy is GuideLLM's strategy type: synchronous, concurrent,
	// throughput, constant, poisson.
	Strategy string
	// Concurrency is the benchmark's streams (1 for synchronous), or its
	// max_concurrency; 0 when it had none.
	Concurrency int
	// Rate is a constant or Poisson benchmark's request rate, 0 otherwise.
	Rate float64
	// Records are the benchmark's requests in send order, their token
	// counts as GuideLLM reported them.
	Records []metrics.Record
	// Total is how many requests the benchmark ran by its own totals; it
	// exceeds len(Records) when GuideLLM kept a sample of them.
	Total int
}

// Result is one benchmarks.json.
type Result struct {
	// Model and API are the backend's model and request format
	// (/v1/chat/completions, /v1/completions, ...).
	Model, API string
	// Stream is the backend's stream setting.
	Stream     bool
	Benchmarks []Benchmark
}

type fileJSON struct {
	Metadata *struct {
		Version int `json:"version"`
	} `json:"metadata"`
	Config struct {
		Spec struct {
			Backend struct {
				Model         string `json:"model"`
				RequestFormat string `json:"request_format"`
				Stream        bool   `json:"stream"`
			} `json:"backend"`
		} `json:"spec"`
	} `json:"config"`
	Benchmarks []benchmarkJSON `json:"benchmarks"`
}

type benchmarkJSON struct {
	Config struct {
		Strategy struct {
			Type           string  `json:"type_"`
			Streams        int     `json:"streams"`
			MaxConcurrency int     `json:"max_concurrency"`
			Rate           float64 `json:"rate"`
		} `json:"strategy"`
	} `json:"config"`
	Metrics struct {
		RequestTotals struct {
			Total int `json:"total"`
		} `json:"request_totals"`
	} `json:"metrics"`
	Requests struct {
		Successful []requestJSON `json:"successful"`
		Errored    []requestJSON `json:"errored"`
		Incomplete []requestJSON `json:"incomplete"`
	} `json:"requests"`
}

type requestJSON struct {
	Output       *string `json:"output"`
	PromptTokens *int    `json:"prompt_tokens"`
	OutputTokens *int    `json:"output_tokens"`
	Info         struct {
		Status  string `json:"status"`
		Timings struct {
			RequestStart     *float64 `json:"request_start"`
			FirstToken       *float64 `json:"first_token_iteration"`
			LastToken        *float64 `json:"last_token_iteration"`
			RequestEnd       *float64 `json:"request_end"`
			ResolveEnd       *float64 `json:"resolve_end"`
			TokenIterations  int      `json:"token_iterations"`
			RequestIteration int      `json:"request_iterations"`
		} `json:"timings"`
		Error *string `json:"error"`
	} `json:"info"`
	Error *string `json:"error"`
}

// Sniff reports whether a JSON document looks like a GuideLLM report:
// metadata naming its GuideLLM version and a benchmarks list.
func Sniff(b []byte) bool {
	var probe struct {
		Metadata *struct {
			Version *string `json:"guidellm_version"`
		} `json:"metadata"`
		Benchmarks *json.RawMessage `json:"benchmarks"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.Metadata != nil && probe.Metadata.Version != nil && probe.Benchmarks != nil
}

// ErrNoBenchmarks is returned for a report without a benchmark.
var ErrNoBenchmarks = errors.New("the report holds no benchmark")

// Read reads a benchmarks.json.
func Read(r io.Reader) (*Result, error) {
	var f fileJSON
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not a GuideLLM report: %w", err)
	}
	if f.Metadata != nil && f.Metadata.Version != 2 {
		return nil, fmt.Errorf("report version %d: this reader knows GuideLLM's version 2 (GuideLLM 0.8)", f.Metadata.Version)
	}
	if len(f.Benchmarks) == 0 {
		return nil, ErrNoBenchmarks
	}
	b := f.Config.Spec.Backend
	res := &Result{Model: b.Model, API: b.RequestFormat, Stream: b.Stream}
	for i, bj := range f.Benchmarks {
		bm, err := bj.benchmark()
		if err != nil {
			return nil, fmt.Errorf("benchmark %d: %w", i+1, err)
		}
		res.Benchmarks = append(res.Benchmarks, bm)
	}
	return res, nil
}

// benchmark rebuilds one benchmark's records, in send order.
func (bj *benchmarkJSON) benchmark() (Benchmark, error) {
	s := bj.Config.Strategy
	bm := Benchmark{Strategy: s.Type, Concurrency: s.Streams, Rate: s.Rate, Total: bj.Metrics.RequestTotals.Total}
	switch {
	case s.Type == "synchronous":
		bm.Concurrency = 1
	case bm.Concurrency == 0:
		bm.Concurrency = s.MaxConcurrency
	}
	for _, group := range [][]requestJSON{bj.Requests.Successful, bj.Requests.Errored, bj.Requests.Incomplete} {
		for i := range group {
			rec, err := group[i].record()
			if err != nil {
				return bm, fmt.Errorf("request %d: %w", len(bm.Records)+1, err)
			}
			bm.Records = append(bm.Records, rec)
		}
	}
	sortBySent(bm.Records)
	return bm, nil
}

// record rebuilds one request (see the package doc for its chunks).
func (q *requestJSON) record() (metrics.Record, error) {
	t := q.Info.Timings
	if t.RequestStart == nil {
		return metrics.Record{}, errors.New("no request_start")
	}
	sent, err := stamp(*t.RequestStart)
	if err != nil {
		return metrics.Record{}, err
	}
	rec := metrics.Record{Sent: sent, Done: sent}
	if q.PromptTokens != nil {
		rec.InputTokens = *q.PromptTokens
	}
	end := t.RequestEnd
	if end == nil {
		end = t.ResolveEnd
	}
	if end != nil {
		if rec.Done, err = stamp(*end); err != nil || rec.Done < sent {
			return rec, fmt.Errorf("request end %v before its start %v", *end, *t.RequestStart)
		}
	}
	if q.Info.Status != "completed" {
		rec.Err = q.failure()
		return rec, nil
	}
	if q.OutputTokens != nil {
		rec.OutputTokens = *q.OutputTokens
	}
	if q.Output != nil {
		rec.Output = *q.Output
	}
	rec.Chunks, err = chunks(t.FirstToken, t.LastToken, t.TokenIterations, rec.Done)
	return rec, err
}

// chunks spreads n chunk times evenly from the first token to the last;
// a request without token times (not streamed) is one chunk at its end.
func chunks(first, last *float64, n int, done int64) ([]int64, error) {
	if first == nil || last == nil || n < 1 {
		return []int64{done}, nil
	}
	a, err := stamp(*first)
	if err != nil {
		return nil, err
	}
	b, err := stamp(*last)
	if err != nil || b < a {
		return nil, fmt.Errorf("last token at %v before the first at %v", *last, *first)
	}
	if n == 1 {
		return []int64{a}, nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = a + int64(math.Round(float64(b-a)*float64(i)/float64(n-1)))
	}
	return out, nil
}

// failure is an errored or incomplete request's failure: GuideLLM keeps
// the error's text, from which the HTTP status is read when there is one.
func (q *requestJSON) failure() *metrics.Failure {
	msg := ""
	switch {
	case q.Info.Error != nil:
		msg = *q.Info.Error
	case q.Error != nil:
		msg = *q.Error
	}
	if q.Info.Status == "incomplete" || q.Info.Status == "cancelled" {
		return &metrics.Failure{Class: metrics.ErrCanceled, Message: "incomplete when GuideLLM stopped the benchmark"}
	}
	f := &metrics.Failure{Class: metrics.ErrServer, Message: msg}
	if code := httpStatus(msg); code > 0 {
		f.Class, f.Status = metrics.ErrHTTP, code
	}
	return f
}

// httpStatus reads the status of httpx's HTTPStatusError text ("Server
// error '500 Internal Server Error' for url ..."), 0 when there is none.
func httpStatus(msg string) int {
	for _, prefix := range []string{"Server error '", "Client error '", "Redirect response '"} {
		if _, rest, ok := strings.Cut(msg, prefix); ok {
			var code int
			if _, err := fmt.Sscanf(rest, "%d", &code); err == nil {
				return code
			}
		}
	}
	return 0
}

// stamp converts GuideLLM's epoch seconds to nanoseconds.
func stamp(s float64) (int64, error) {
	if !(s >= 0) || s > 1e11 {
		return 0, fmt.Errorf("time %v is not an epoch time in seconds", s)
	}
	return int64(math.Round(s * 1e9)), nil
}

// sortBySent orders records by send time and numbers them in that order,
// as llmbench's own records are.
func sortBySent(recs []metrics.Record) {
	slices.SortStableFunc(recs, func(a, b metrics.Record) int { return cmp.Compare(a.Sent, b.Sent) })
	for i := range recs {
		recs[i].ID, recs[i].Entry = int64(i), i
	}
}

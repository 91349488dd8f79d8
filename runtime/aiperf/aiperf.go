// Package aiperf reads NVIDIA AIPerf's per-request export back into
// request records, so an AIPerf run can be reported under every view and
// compared with llmbench runs. The format is AIPerf 0.13's
// profile_export.jsonl (one JSON object per request: metadata with its
// phase and nanosecond stamps, metrics each as {value, unit}, and an
// error object when it failed), with the load read from the run's
// profile_export_aiperf.json beside it.
package aiperf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/llmbench/llmbench/metrics"
)

// Result is one AIPerf profiling run.
type Result struct {
	// Model is the first model the run names ("" when the summary is
	// missing).
	Model string
	// EndpointType is AIPerf's --endpoint-type (chat, completions, ...),
	// "" when the summary is missing.
	EndpointType string
	// Streaming is --streaming, or, without a summary, whether any request
	// got more than one chunk.
	Streaming bool
	// Concurrency is the profiling phase's --concurrency, 0 when it had
	// none; RequestRate its --request-rate, 0 when it had none.
	Concurrency int
	RequestRate float64
	// Records are the profiling phase's requests in send order, their
	// token counts AIPerf's (its tokenizer). Warm-up requests are not
	// among them: AIPerf leaves them out of its results too.
	Records []metrics.Record
	// WarmupRequests counts the warm-up records the export held.
	WarmupRequests int
}

// line is one record of profile_export.jsonl, the fields read.
type line struct {
	Metadata struct {
		Phase        string `json:"benchmark_phase"`
		Start        int64  `json:"request_start_ns"`
		End          int64  `json:"request_end_ns"`
		WasCancelled bool   `json:"was_cancelled"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// summary is the part of profile_export_aiperf.json the load is read from.
type summary struct {
	InputConfig struct {
		Models struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"models"`
		Endpoint struct {
			Type      string `json:"type"`
			Streaming bool   `json:"streaming"`
		} `json:"endpoint"`
		Phases []struct {
			Kind        string  `json:"kind"`
			Concurrency int     `json:"concurrency"`
			Rate        float64 `json:"rate"`
		} `json:"phases"`
	} `json:"input_config"`
}

// Sniff reports whether the first line of a file looks like an AIPerf
// per-request record: an object with metadata naming a benchmark phase
// and a request start.
func Sniff(firstLine []byte) bool {
	var probe struct {
		Metadata *struct {
			Phase *string `json:"benchmark_phase"`
			Start *int64  `json:"request_start_ns"`
		} `json:"metadata"`
	}
	return json.Unmarshal(firstLine, &probe) == nil && probe.Metadata != nil &&
		probe.Metadata.Phase != nil && probe.Metadata.Start != nil
}

// ErrNoRequests is returned for an export with no profiling request.
var ErrNoRequests = errors.New("the export holds no profiling request")

// Read reads profile_export.jsonl and, when summary is not nil, the run's
// profile_export_aiperf.json for its model, endpoint and load.
func Read(jsonl io.Reader, summaryJSON io.Reader) (*Result, error) {
	res := &Result{}
	if summaryJSON != nil {
		if err := res.readSummary(summaryJSON); err != nil {
			return nil, err
		}
	}
	sc := bufio.NewScanner(jsonl)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("line %d: not an AIPerf record: %w", n, err)
		}
		if l.Metadata.Phase == "warmup" {
			res.WarmupRequests++
			continue
		}
		rec, err := l.record(int64(len(res.Records)))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		res.Records = append(res.Records, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(res.Records) == 0 {
		return nil, ErrNoRequests
	}
	if summaryJSON == nil {
		res.Streaming = streamed(res.Records)
	}
	return res, nil
}

// readSummary takes the model, endpoint and profiling load from the
// run's summary.
func (res *Result) readSummary(r io.Reader) error {
	var s summary
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return fmt.Errorf("profile_export_aiperf.json: %w", err)
	}
	c := s.InputConfig
	if len(c.Models.Items) > 0 {
		res.Model = c.Models.Items[0].Name
	}
	res.EndpointType, res.Streaming = c.Endpoint.Type, c.Endpoint.Streaming
	for _, p := range c.Phases {
		if p.Kind == "profiling" {
			res.Concurrency, res.RequestRate = p.Concurrency, p.Rate
		}
	}
	return nil
}

// record rebuilds one request: sent at its start, its first chunk after
// its TTFT, each later one after its inter-chunk latency, done at its end.
// A request with an error is a failure carrying AIPerf's code and message.
func (l *line) record(id int64) (metrics.Record, error) {
	rec := metrics.Record{ID: id, Entry: int(id), Sent: l.Metadata.Start, Done: l.Metadata.End}
	if rec.Done < rec.Sent {
		return rec, fmt.Errorf("request_end_ns %d before request_start_ns %d", rec.Done, rec.Sent)
	}
	if l.Error != nil || l.Metadata.WasCancelled {
		rec.Err = l.failure()
		rec.InputTokens = l.count("error_isl")
		return rec, nil
	}
	rec.InputTokens, rec.OutputTokens = l.count("input_sequence_length"), l.count("output_sequence_length")
	rec.Usage = metrics.Usage{PromptTokens: l.count("usage_prompt_tokens"), CompletionTokens: l.count("usage_completion_tokens")}
	rec.Usage.Reported = rec.Usage.PromptTokens+rec.Usage.CompletionTokens > 0
	ttft, ok, err := l.millis("time_to_first_token")
	if err != nil {
		return rec, err
	}
	if !ok { // not streamed: one chunk, at the end
		rec.Chunks = []int64{rec.Done}
		return rec, nil
	}
	gaps, err := l.gaps()
	if err != nil {
		return rec, err
	}
	at := rec.Sent + ttft
	rec.Chunks = append(make([]int64, 0, len(gaps)+1), at)
	for _, g := range gaps {
		at += g
		rec.Chunks = append(rec.Chunks, at)
	}
	rec.Done = max(rec.Done, at)
	return rec, nil
}

// failure is the record's error as llmbench classes it: an HTTP status is
// an http failure, a payload cut short a reset, a timeout a timeout.
func (l *line) failure() *metrics.Failure {
	if l.Error == nil {
		return &metrics.Failure{Class: metrics.ErrCanceled, Message: "cancelled by AIPerf"}
	}
	f := &metrics.Failure{Class: metrics.ErrServer, Status: l.Error.Code, Message: l.Error.Type + ": " + l.Error.Message}
	switch {
	case l.Error.Code >= 300:
		f.Class = metrics.ErrHTTP
	case l.Error.Type == "ClientPayloadError" || l.Error.Type == "ServerDisconnectedError":
		f.Class = metrics.ErrReset
	case l.Error.Type == "TimeoutError" || l.Error.Type == "ServerTimeoutError":
		f.Class = metrics.ErrTimeout
	case l.Error.Type == "ClientConnectorError":
		f.Class = metrics.ErrConnect
	}
	return f
}

// count reads a token count metric, 0 when absent.
func (l *line) count(name string) int {
	var v float64
	if m, ok := l.Metrics[name]; ok && json.Unmarshal(m.Value, &v) == nil && v >= 0 && v < math.MaxInt32 {
		return int(v)
	}
	return 0
}

// millis reads a duration metric in ms as nanoseconds; ok is false when
// the record has none.
func (l *line) millis(name string) (ns int64, ok bool, err error) {
	m, ok := l.Metrics[name]
	if !ok {
		return 0, false, nil
	}
	var v float64
	if err := json.Unmarshal(m.Value, &v); err != nil || m.Unit != "ms" {
		return 0, false, fmt.Errorf("%s: want a value in ms, got %s %s", name, m.Value, m.Unit)
	}
	ns, err = duration(v)
	return ns, err == nil, err
}

// gaps reads inter_chunk_latency, the gaps between a stream's chunks.
func (l *line) gaps() ([]int64, error) {
	m, ok := l.Metrics["inter_chunk_latency"]
	if !ok {
		return nil, nil
	}
	var vs []float64
	if err := json.Unmarshal(m.Value, &vs); err != nil || m.Unit != "ms" {
		return nil, fmt.Errorf("inter_chunk_latency: want a list of ms, got %s %s", m.Value, m.Unit)
	}
	out := make([]int64, len(vs))
	for i, v := range vs {
		d, err := duration(v)
		if err != nil {
			return nil, fmt.Errorf("inter_chunk_latency: %w", err)
		}
		out[i] = d
	}
	return out, nil
}

// duration converts ms to ns, refusing what is not a duration.
func duration(ms float64) (int64, error) {
	if !(ms >= 0) || ms > 1e12 {
		return 0, fmt.Errorf("time %v ms is not a duration", ms)
	}
	return int64(math.Round(ms * 1e6)), nil
}

// streamed guesses streaming from the records: a streamed request has
// several chunks.
func streamed(recs []metrics.Record) bool {
	for _, r := range recs {
		if len(r.Chunks) > 1 {
			return true
		}
	}
	return false
}

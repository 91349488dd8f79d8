// Package vllmbench reads the result file of `vllm bench serve
// --save-result --save-detailed` back into per-request records, so a
// historical vllm bench run can be reported under every view and
// compared with llmbench runs (the format is vllm/benchmarks/serve.py's
// result_json, read from vLLM 0.32).
package vllmbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Result is one vllm bench serve run.
type Result struct {
	// Backend is vllm bench's --backend (openai-chat, openai, vllm, ...).
	Backend string
	// Model is the served model's id (model_id).
	Model string
	// MaxConcurrency is --max-concurrency, 0 when the run had none.
	MaxConcurrency int
	// RequestRate is --request-rate, +Inf when requests were sent at
	// once ("inf").
	RequestRate float64
	// Records are the requests in the order vllm bench sent them, their
	// token counts as vllm bench counted them (its tokenizer).
	Records []metrics.Record
}

// fileJSON is the part of result_json the records are rebuilt from.
type fileJSON struct {
	Date           string          `json:"date"`
	Backend        string          `json:"backend"`
	ModelID        string          `json:"model_id"`
	MaxConcurrency *int            `json:"max_concurrency"`
	RequestRate    json.RawMessage `json:"request_rate"`
	InputLens      []int           `json:"input_lens"`
	OutputLens     []int           `json:"output_lens"`
	TTFTs          []float64       `json:"ttfts"`
	ITLs           [][]float64     `json:"itls"`
	Latencies      []float64       `json:"latencies"`
	StartTimes     []float64       `json:"start_times"`
	Texts          []string        `json:"generated_texts"`
	Errors         []string        `json:"errors"`
}

// Sniff reports whether a JSON document looks like a vllm bench result
// (it names a backend and holds per-request TTFTs), without reading it
// whole into records.
func Sniff(b []byte) bool {
	var probe struct {
		Backend *string          `json:"backend"`
		TTFTs   *json.RawMessage `json:"ttfts"`
		Date    *string          `json:"date"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.Backend != nil && probe.Date != nil && probe.TTFTs != nil
}

// ErrNotDetailed is returned for a result saved without
// --save-detailed: it has no per-request values to rebuild.
var ErrNotDetailed = errors.New("the result holds no per-request values: save it with vllm bench serve --save-result --save-detailed")

// Read reads a result file. Times are vllm bench's: each request's start
// on the client's monotonic clock (start_times, seconds), its TTFT, the
// gaps between its later chunks (itls) and its latency; the first
// request is placed at the file's date (local time, read as UTC).
func Read(r io.Reader) (*Result, error) {
	var f fileJSON
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not a vllm bench serve result: %w", err)
	}
	n := len(f.TTFTs)
	if n == 0 || len(f.StartTimes) != n {
		return nil, ErrNotDetailed
	}
	for name, l := range map[string]int{"input_lens": len(f.InputLens), "output_lens": len(f.OutputLens),
		"itls": len(f.ITLs), "latencies": len(f.Latencies), "errors": len(f.Errors)} {
		if l != n {
			return nil, fmt.Errorf("%s has %d values for %d requests", name, l, n)
		}
	}
	res := &Result{Backend: f.Backend, Model: f.ModelID}
	if f.MaxConcurrency != nil {
		res.MaxConcurrency = *f.MaxConcurrency
	}
	var err error
	if res.RequestRate, err = requestRate(f.RequestRate); err != nil {
		return nil, err
	}
	origin, err := time.Parse("20060102-150405", f.Date)
	if err != nil {
		return nil, fmt.Errorf("date %q: want vllm bench's YYYYMMDD-HHMMSS", f.Date)
	}
	first := slices.Min(f.StartTimes)
	for i := range n {
		rec, err := f.record(i, origin.UnixNano()+seconds(f.StartTimes[i]-first))
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
		res.Records = append(res.Records, rec)
	}
	return res, nil
}

// record rebuilds request i sent at sent (ns): its first chunk after its
// TTFT, each later one after its gap; done at its latency. A request with
// an error is a failure carrying vllm bench's message.
func (f *fileJSON) record(i int, sent int64) (metrics.Record, error) {
	rec := metrics.Record{ID: int64(i), Entry: i, Sent: sent, InputTokens: f.InputLens[i]}
	if msg := f.Errors[i]; msg != "" {
		rec.Done = sent + seconds(f.Latencies[i])
		rec.Err = &metrics.Failure{Class: metrics.ErrServer, Message: msg}
		return rec, nil
	}
	for _, v := range append([]float64{f.TTFTs[i], f.Latencies[i]}, f.ITLs[i]...) {
		if !(v >= 0) || math.IsInf(v, 0) {
			return rec, fmt.Errorf("time %v is not a duration", v)
		}
	}
	at := sent + seconds(f.TTFTs[i])
	rec.Chunks = append(rec.Chunks, at)
	for _, gap := range f.ITLs[i] {
		at += seconds(gap)
		rec.Chunks = append(rec.Chunks, at)
	}
	rec.Done = max(at, sent+seconds(f.Latencies[i]))
	rec.OutputTokens = f.OutputLens[i]
	if i < len(f.Texts) {
		rec.Output = f.Texts[i]
	}
	return rec, nil
}

// requestRate reads request_rate: a number, or "inf".
func requestRate(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return math.Inf(1), nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "inf" {
			return math.Inf(1), nil
		}
		return strconv.ParseFloat(s, 64)
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("request_rate %s: want a number or \"inf\"", raw)
	}
	return v, nil
}

func seconds(s float64) int64 { return int64(math.Round(s * 1e9)) }

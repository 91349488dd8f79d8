package runtime

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// Job is everything needed to measure one point.
type Job struct {
	Endpoint Endpoint
	Entries  []dataset.Entry
	Point    Point
	Count    CountMode
	// Tokenizer is required when Count is ByTokenizer.
	Tokenizer Tokenizer
	Goodput   []metrics.SLO
	// Records, when set, receives every measured record, token-counted, as
	// the run goes (records.parquet), so a crash loses at most what the
	// writer had not yet flushed.
	Records RecordWriter
}

// RecordWriter takes finished records in completion order.
type RecordWriter interface {
	Write(recs ...metrics.Record) error
}

// Outcome is a measured point: the raw records, how tokens were counted,
// and the reduced metrics.
type Outcome struct {
	// Target is the URL requests went to (the simulator's real address for
	// sim://).
	Target   string
	Requests []Request
	Result   *Result
	Counting Counting
	Summary  metrics.Summary
	// Goodput are the SLOs the summary's goodput was judged against.
	Goodput []metrics.SLO
	// RecordsErr is the first error of Job.Records; the measurement itself
	// is still complete in Result.
	RecordsErr error
}

// Execute runs one point end to end: it starts the simulator for sim://,
// checks the target answers, sends the load and reduces the records.
func Execute(ctx context.Context, job Job) (*Outcome, error) {
	if err := job.Point.Validate(); err != nil {
		return nil, err
	}
	if len(job.Entries) == 0 {
		return nil, fmt.Errorf("the dataset has no entries")
	}
	base, stop, err := resolve(job.Endpoint)
	if err != nil {
		return nil, err
	}
	defer stop()
	clock := transport.NewClock()
	client, err := transport.NewClient(clientConfig(job, base), clock)
	if err != nil {
		return nil, err
	}
	defer client.Close()

	reqs := Requests(job.Endpoint, job.Entries)
	stream := streamRecords(&job, reqs)
	res := Run(ctx, job.Point, client, clock, reqs)
	streamed, recordsErr := stream()
	var counting Counting
	if streamed != nil { // the streaming goroutine counted every record already
		counting = streamed.apply(res.Records)
	} else {
		counting = CountTokens(res.Records, reqs, job.Count, job.Tokenizer)
	}
	summary := metrics.Summarize(res.Records, metrics.Options{Goodput: job.Goodput})
	return &Outcome{Target: client.Target(), Requests: reqs, Result: res, Counting: counting,
		Summary: summary, Goodput: job.Goodput, RecordsErr: recordsErr}, nil
}

// streamRecords hands finished records to job.Records from one goroutine,
// counting their tokens there, off the requests' own goroutines. The
// returned func waits for the last record and gives back the counts (nil
// without job.Records) and the first write error.
func streamRecords(job *Job, reqs []Request) (wait func() (*streamedCounts, error)) {
	if job.Records == nil {
		return func() (*streamedCounts, error) { return nil, nil }
	}
	ch := make(chan metrics.Record, 4096)
	done := make(chan error, 1)
	job.Point.OnRecord = func(rec metrics.Record) { ch <- rec }
	counts := &streamedCounts{counter: newTokenCounter(reqs, job.Count, job.Tokenizer), tokens: map[int64][2]int{}}
	go func() {
		var first error
		for rec := range ch {
			counts.add(&rec)
			if err := job.Records.Write(rec); err != nil && first == nil {
				first = err
			}
		}
		done <- first
	}()
	return func() (*streamedCounts, error) {
		close(ch)
		err := <-done
		return counts, err
	}
}

// streamedCounts keeps the token counts made while streaming, so the
// in-memory records are not tokenized a second time.
type streamedCounts struct {
	counter   *tokenCounter
	tokens    map[int64][2]int // record ID → ISL, OSL
	fallbacks int
}

func (s *streamedCounts) add(rec *metrics.Record) {
	if s.counter.count(rec) {
		s.fallbacks++
	}
	s.tokens[rec.ID] = [2]int{rec.InputTokens, rec.OutputTokens}
}

// apply fills the in-memory records, which are the streamed ones.
func (s *streamedCounts) apply(recs []metrics.Record) Counting {
	for i := range recs {
		t, ok := s.tokens[recs[i].ID]
		if !ok { // cannot happen: both come from the same append
			s.add(&recs[i])
			t = s.tokens[recs[i].ID]
		}
		recs[i].InputTokens, recs[i].OutputTokens = t[0], t[1]
	}
	return Counting{Mode: s.counter.mode, Fallbacks: s.fallbacks}
}

// resolve turns the endpoint into a base URL that answers, starting the
// simulator for sim://. stop releases whatever was started.
func resolve(e Endpoint) (base string, stop func(), err error) {
	if !e.IsSim() {
		base = BaseURL(e.URL)
		return base, func() {}, preflight(base)
	}
	cfg, err := SimConfig(e.URL)
	if err != nil {
		return "", nil, err
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		return "", nil, err
	}
	return srv.URL(), func() { _ = srv.Close() }, nil
}

func clientConfig(job Job, base string) transport.Config {
	e := job.Endpoint
	l := job.Point.Load
	conns := l.Concurrency
	if !l.Closed() { // open loop or replay
		conns = l.MaxConcurrency
		if conns == 0 {
			conns = 16384 // an open loop may have any number in flight
		}
	}
	return transport.Config{
		URL: base, Path: e.Path, API: e.API, Stream: e.Stream, Headers: e.Headers,
		Timeout: e.Timeout, IdleTimeout: e.IdleTimeout, MaxConns: conns, Insecure: e.Insecure,
	}
}

// Requests renders the request body of every dataset entry once, so the
// hot path only sends bytes.
func Requests(e Endpoint, entries []dataset.Entry) []Request {
	spec := transport.BodySpec{API: e.API, Model: e.Model, Stream: e.Stream, Extra: e.Extra}
	reqs := make([]Request, len(entries))
	for i, en := range entries {
		reqs[i] = Request{
			Body:      spec.Body(transport.Prompt{Text: en.Text, MaxTokens: en.MaxTokens, MinTokens: en.MinTokens}),
			Text:      en.Text,
			Words:     en.Words,
			Component: en.Component,
			At:        en.At,
		}
	}
	return reqs
}

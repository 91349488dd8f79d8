// Package metrics is the pure arithmetic of llmbench: it turns per-request
// records into GenAI-Perf's per-request and per-run metrics, and later into
// goodput, gates and capacity analysis. It owns the metric catalogue
// (Catalogue, Lookup): the one definition of every metric's names, units,
// direction and readers, which gates, comparisons and every report walk.
// It imports nothing of llmbench, so every formula can be checked against
// hand-computed cases in isolation.
package metrics

import (
	"iter"
	"slices"
)

// Record is everything observed about one request. Transport creates and
// fills it while the request is in flight; runtime completes it with token
// counts; metrics only reads it. All timestamps are nanoseconds since the
// Unix epoch, taken as run-start wall time plus a monotonic offset, so gaps
// between them never jump with clock adjustments.
type Record struct {
	// ID numbers the request within its run, in send order, starting at 0.
	ID int64
	// Entry is the index of the dataset entry whose payload was sent.
	Entry int
	// Component names the dataset component the entry came from ("" when
	// the dataset is not a mix), so metrics can be split per component.
	Component string

	// Session names the conversation a multi-turn request belongs to and
	// Turn is its 1-based turn index within it; "" and 0 outside a
	// conversation. LastTurn marks the session's final planned turn, so a
	// session is complete exactly when its last turn completed.
	Session  string
	Turn     int
	LastTurn bool
	// InputText is the prompt as token counting sees it when it is not
	// the dataset entry's own: a conversation turn's whole history. ""
	// for single-turn requests, whose entry holds it.
	InputText string

	// Media counts the pictures and audio clips the request carried
	// beside its text, and their bytes: ISL counts the text alone.
	Media Media

	// Replica is the index, in the endpoint's URL list, of the replica
	// that served the request: 0 for an endpoint with one URL.
	Replica int
	// Stage is the index of the stage of a stages() load the request was
	// sent in (its planned instant's, in an open loop); 0 otherwise.
	Stage int

	// Scheduled is the planned send time of an open-loop request (0 in a
	// closed loop); Sent − Scheduled is the schedule lag.
	Scheduled int64
	// Sent is when the request was handed to the connection.
	Sent int64
	// Chunks holds the arrival time of every content-bearing response
	// chunk, in order: the role-only first chunk, finish-only and
	// usage-only chunks, comments and [DONE] are never in it. A
	// non-streaming response has exactly one chunk, at completion. A
	// completed request always has one: a zero-token answer (finish_reason
	// or usage with 0 completion tokens, no text) and an embeddings
	// response have one empty chunk at the event that ended them.
	Chunks []int64
	// ChunkEnds holds, for every entry of Chunks, the end offset of that
	// chunk's text in Output, so per-chunk text can be recovered (for
	// perf_analyzer's raw export) without keeping a string per chunk.
	ChunkEnds []int32
	// ReasoningChunks is how many leading content chunks carried only
	// reasoning_content; 0 for non-reasoning models. The chunk at this index
	// is the first answer chunk (time to first output token).
	ReasoningChunks int
	// Done is when the response was read to its end (or failed).
	Done int64
	// Retries counts the attempts sent again because the request provably
	// never reached the server (its write failed on a reused keep-alive
	// connection, or the kernel saw the server close that connection before
	// the request got there); a request the server may have read is never
	// sent again. Sent is the answered attempt's.
	Retries int

	// Output is the concatenated text of every content chunk (reasoning and
	// answer, in arrival order); tokenizer-mode OSL is counted on it.
	Output string
	// Usage is what the server reported in its `usage` object, if anything.
	Usage Usage

	// InputTokens (ISL) and OutputTokens (OSL) are filled by runtime with
	// the run's token counting mode before metrics are computed.
	InputTokens  int
	OutputTokens int

	// Warmup marks a measured request an auto point's warm-up rule
	// (MSER-5, SteadyRows) judged part of the start-up transient: it is
	// kept in records.parquet, so the cut can be seen and re-applied, and
	// left out of every metric.
	Warmup bool

	// Err is nil for a completed request. A failed request is counted in
	// error_count/error_rate and never enters latency statistics.
	Err *Failure
}

// Metrics are the record's metrics (Derive).
func (r *Record) Metrics() RequestMetrics { return Derive(r) }

// ChunkGaps yields the gaps between consecutive content chunks (the
// per-chunk ITL), ns, in order: none with fewer than two chunks. They are
// read off Chunks rather than kept: a slice of them per record was most
// of what a finishing stream allocated (0.47 KB at 60 tokens), all at once
// when thousands of streams end together.
func (r *Record) ChunkGaps() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for i := 1; i < len(r.Chunks); i++ {
			if !yield(r.Chunks[i] - r.Chunks[i-1]) {
				return
			}
		}
	}
}

// GapCount is how many gaps ChunkGaps yields.
func (r *Record) GapCount() int { return max(len(r.Chunks)-1, 0) }

// Usage is the server's own token accounting (OpenAI `usage`).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	// Reported is true when the server sent a usage object with a
	// non-zero total; some servers send zero-filled usage on every chunk.
	Reported bool
	// CachedTokens is how many of PromptTokens the server says it served
	// from its prefix cache (OpenAI chat's
	// prompt_tokens_details.cached_tokens, Responses'
	// input_tokens_details.cached_tokens, Anthropic's
	// cache_read_input_tokens), so a sweep can show when caching, not
	// load, moved its TTFT. CachedReported tells a server that said 0
	// from one that never says (vLLM without prompt-tokens details).
	CachedTokens   int
	CachedReported bool
}

// ErrorClass says what kind of fault ended a request, so reports can group
// errors and users can tell a server fault from a client limit.
type ErrorClass string

// The error classes, from the least to the most specific cause.
const (
	// ErrHTTP is a non-2xx response status.
	ErrHTTP ErrorClass = "http"
	// ErrConnect is a failure to open a connection (refused, DNS, dial timeout).
	ErrConnect ErrorClass = "connect"
	// ErrReset is a connection closed by the peer before the response ended.
	ErrReset ErrorClass = "reset"
	// ErrTimeout is the per-request timeout or the inter-chunk idle watchdog.
	ErrTimeout ErrorClass = "timeout"
	// ErrMalformed is a response body or stream event that is not valid JSON
	// of the expected shape, or broken HTTP framing (a chunked body whose
	// chunk-size lines are not CRLF-terminated).
	ErrMalformed ErrorClass = "malformed"
	// ErrEmpty is a 200 response that carried no content: a stream of only
	// `[DONE]`, role or comment events, a body that is not SSE at all, or a
	// JSON body without choices, unless the server said it finished
	// normally (a finish_reason or usage) with 0 completion tokens.
	ErrEmpty ErrorClass = "empty"
	// ErrTruncated is a stream that ended cleanly (EOF) after content but
	// without a finish_reason, a usage report or `[DONE]`: the answer may be
	// cut short, so its OSL and latency cannot be trusted.
	ErrTruncated ErrorClass = "truncated"
	// ErrOversize is a response, or one SSE line, larger than the client's
	// configured limit; reading stopped there to keep memory bounded.
	ErrOversize ErrorClass = "oversize"
	// ErrServer is an error reported inside a 200 response: an SSE
	// `event: error` or an `error` object in the stream.
	ErrServer ErrorClass = "server_error"
	// ErrCanceled is a request abandoned because the run was interrupted.
	ErrCanceled ErrorClass = "canceled"
)

// Failure describes why a request failed.
type Failure struct {
	Class ErrorClass
	// Status is the HTTP status code, 0 when no response status was read.
	Status int
	// Message is a short human-readable cause (server body excerpt or
	// client error text), never containing request headers.
	Message string
}

// Completed reports whether the request finished without a failure.
func (r *Record) Completed() bool { return r.Err == nil }

// maxExpectedChunks bounds ExpectChunks: a max_tokens far above what the
// server will answer must not reserve memory for it.
const maxExpectedChunks = 4096

// ExpectChunks sizes Chunks and ChunkEnds for an answer of about n
// chunks, so a stream appends into them without growing them token by
// token (each growth is an allocation, and a copy, while thousands of
// streams are open). FitChunks gives back what the answer did not use.
func (r *Record) ExpectChunks(n int) {
	n = min(n, maxExpectedChunks)
	if n <= cap(r.Chunks) {
		return
	}
	r.Chunks = append(make([]int64, 0, n), r.Chunks...)
	r.ChunkEnds = append(make([]int32, 0, n), r.ChunkEnds...)
}

// FitChunks trims the spare capacity of Chunks and ChunkEnds when it is
// more than a quarter of what they hold: records are kept for the whole
// run, and an answer that stopped well short of max_tokens would keep the
// reservation.
func (r *Record) FitChunks() {
	if spare := cap(r.Chunks) - len(r.Chunks); spare > len(r.Chunks)/4+4 {
		r.Chunks = slices.Clone(r.Chunks)
	}
	if spare := cap(r.ChunkEnds) - len(r.ChunkEnds); spare > len(r.ChunkEnds)/4+4 {
		r.ChunkEnds = slices.Clone(r.ChunkEnds)
	}
}

// Package sim is llmbench's built-in simulated inference server: an
// OpenAI-compatible HTTP server on 127.0.0.1 that behaves like a
// continuous-batching engine (vLLM-shaped streams, a bounded batch with a
// FIFO queue, inter-token latency that grows with the batch) and misbehaves
// on cue (429, 500, connection resets, malformed SSE, stalls). It lets tests,
// demos and client benchmarks run with nothing else installed, and its
// fake DCGM and vLLM /metrics exercise the telemetry path.
//
// Every random choice (jitter, words, faults) comes from a generator seeded
// with Config.Seed and the request's sequence number (1, 2, … over every
// inference request in arrival order, rejected ones included), so a run
// sent in the same order sees the same faults. The one exception is drift:
// the start's speed factor comes from Config.DriftSeed, fresh by default,
// because drift stands for what differs between starts of a real server.
package sim

import (
	"errors"
	"fmt"
	"time"
)

// Config describes the simulated engine. Start it from DefaultConfig and
// change what the experiment needs; Start rejects an invalid Config.
type Config struct {
	// Addr is the TCP address to listen on; port 0 picks a free port.
	Addr string
	// GRPCAddr, when set, is a second address on which the simulator
	// serves Triton's KServe v2 gRPC API (GRPCInferenceService, llmbench's
	// api="triton"); "" serves none.
	GRPCAddr string
	// Seed makes jitter, generated words and fault choices reproducible.
	Seed int64

	// TTFT is the fixed part of prefill, paid by every request once it
	// holds a batch slot.
	TTFT time.Duration
	// PrefillPerToken is the prefill cost of each input token, so TTFT
	// grows with the prompt as on a real server.
	PrefillPerToken time.Duration
	// ITL is the gap between tokens when one sequence is decoding.
	ITL time.Duration
	// ITLPerSeq is added to the gap for every other sequence decoding at
	// the same moment: a bigger batch makes every step slower.
	ITLPerSeq time.Duration
	// MaxBatch is how many requests run at once; later ones wait in a FIFO
	// queue, which is what gives a concurrency sweep its knee.
	MaxBatch int
	// Jitter is the relative spread of every delay: each one is multiplied
	// by a seeded uniform factor in [1-Jitter, 1+Jitter].
	Jitter float64
	// Drift is the run-to-run spread: each start draws one speed factor,
	// lognormal with this σ (0.05: about ±5% between starts), and every
	// delay of that start (prefill, base TTFT, ITL, stalls, and so the
	// queue) is multiplied by it; see DriftFactor. 0, the default, keeps
	// every start alike.
	Drift float64
	// DriftSeed seeds the drift draw; 0 draws a fresh seed at every start,
	// which is what drift is for. Seed does not touch it, so a fixed Seed
	// keeps a run's requests alike while the server's speed drifts.
	DriftSeed int64
	// DriftWave is drift within a run: every delay made at time t after
	// the start is also multiplied by DriftWave.Factor(t); see Wave. The
	// zero Wave keeps the speed constant.
	DriftWave Wave

	// DefaultOutputTokens is the output length of a request that sets no
	// max_tokens. With max_tokens the sim generates exactly that many.
	DefaultOutputTokens int
	// Model is the model name reported in responses and metrics; requests
	// may name any model.
	Model string

	// ErrorRate429 and ErrorRate500 are the fractions of requests answered
	// at once with HTTP 429 or 500.
	ErrorRate429 float64
	ErrorRate500 float64
	// ResetRate is the fraction of requests whose TCP connection is reset
	// after a seeded number of tokens.
	ResetRate float64
	// MalformedRate is the fraction of requests that get one invalid JSON
	// event mid-stream (a truncated body when not streaming) and then go on.
	MalformedRate float64
	// StallRate is the fraction of requests that pause for Stall
	// mid-stream, as a server stuck in a long GC or preemption would.
	StallRate float64
	// Stall is the length of an injected pause.
	Stall time.Duration

	// Reasoning makes chat responses carry their first ReasoningTokens
	// tokens as reasoning_content, like a reasoning model, before the
	// answer, so time to first answer token can differ from TTFT.
	Reasoning bool
	// ReasoningTokens is how many leading tokens are reasoning; the total
	// output length is still max_tokens.
	ReasoningTokens int

	// Flavor is the server whose stream format is imitated: FlavorVLLM
	// (the zero value) or FlavorOllama; see Flavor.
	Flavor Flavor
	// ContextTokens is the model's context window (0: unlimited). A longer
	// prompt is cut to its last ContextTokens tokens under FlavorOllama,
	// which then reports ContextTokens prompt tokens and answers normally
	// (Ollama truncates to num_ctx); under FlavorVLLM a request whose
	// prompt and max_tokens together exceed it gets a 400, as vLLM refuses
	// one beyond max_model_len.
	ContextTokens int
	// MergeRate is the fraction of streamed tokens held back and sent in
	// one chunk with the next token, as Ollama does with a token that ends
	// inside a multi-byte character, so content chunks number fewer than
	// tokens. 0 (the default) sends every token in its own chunk.
	MergeRate float64
	// StrictModel answers 404 to a request naming a model other than
	// Model, in the flavor's error shape, as real servers do; by default
	// any model name is served.
	StrictModel bool

	// PrefixCacheBlocks turns on the automatic prefix cache and bounds it:
	// how many prompt blocks of PrefixBlockTokens tokens stay resident
	// (least recently used evicted first). A request's leading blocks
	// already resident are cached tokens: its prefill skips them
	// (PrefillPerToken is paid on the rest only) and its usage reports
	// them (prompt_tokens_details.cached_tokens, Responses'
	// input_tokens_details.cached_tokens, Messages'
	// cache_read_input_tokens). 0, the default, is a server without one,
	// whose chat usage has no prompt_tokens_details, as vLLM's without
	// --enable-prompt-tokens-details.
	PrefixCacheBlocks int
	// PrefixBlockTokens is the cache's block size in tokens (vLLM's
	// --block-size, 16 by default): only whole blocks are cached.
	PrefixBlockTokens int
	// HidePromptTokensDetails leaves prompt_tokens_details out of the
	// chat and completions usage even with a prefix cache, as vLLM does
	// unless started with --enable-prompt-tokens-details: the cache's hits
	// are then seen only in /metrics (prefix_cache_hits_total), which is
	// what llmbench must read them from against a default vLLM.
	HidePromptTokensDetails bool
	// SharedPrefixCache, when set with PrefixCacheBlocks, is the cache the
	// server uses instead of a new one (its own capacity applies): what
	// earlier servers given it cached stays cached.
	SharedPrefixCache *PrefixCache
}

// DefaultConfig returns a small, fast engine resembling an 8B model on one
// GPU: 20 ms TTFT, 8 ms ITL growing 0.25 ms per extra sequence, a batch of
// 64, 5% jitter and no faults.
func DefaultConfig() Config {
	return Config{
		Addr:                "127.0.0.1:0",
		TTFT:                20 * time.Millisecond,
		PrefillPerToken:     20 * time.Microsecond,
		ITL:                 8 * time.Millisecond,
		ITLPerSeq:           250 * time.Microsecond,
		MaxBatch:            64,
		Jitter:              0.05,
		DefaultOutputTokens: 128,
		Model:               "llmbench-sim",
		Stall:               time.Second,
		ReasoningTokens:     32,
		PrefixBlockTokens:   16,
	}
}

// Validate reports every invalid field at once, each message naming the
// field as the scenario language spells it.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("sim: "+format, args...))
	}
	if c.Addr == "" {
		bad("addr must not be empty")
	}
	if c.Model == "" {
		bad("model must not be empty")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"ttft", c.TTFT}, {"prefill_per_token", c.PrefillPerToken}, {"itl", c.ITL},
		{"itl_per_seq", c.ITLPerSeq}, {"stall", c.Stall},
	} {
		if d.v < 0 {
			bad("%s must be >= 0, got %s", d.name, d.v)
		}
	}
	if c.MaxBatch < 1 {
		bad("max_batch must be >= 1, got %d", c.MaxBatch)
	}
	if !(c.Jitter >= 0 && c.Jitter <= 1) {
		bad("jitter must be in [0, 1], got %g", c.Jitter)
	}
	if !(c.Drift >= 0 && c.Drift <= 1) {
		bad("drift must be in [0, 1] (the σ of the log of the speed factor), got %g", c.Drift)
	}
	if w := c.DriftWave; w != (Wave{}) && !(w.Amplitude > 0 && w.Amplitude < 1 && w.Period > 0) {
		bad("drift %s: want an amplitude in (0, 100%%) and a period > 0", w)
	}
	if c.DefaultOutputTokens < 1 {
		bad("default_output_tokens must be >= 1, got %d", c.DefaultOutputTokens)
	}
	if c.ContextTokens < 0 {
		bad("context_tokens must be >= 0, got %d", c.ContextTokens)
	}
	if !(c.MergeRate >= 0 && c.MergeRate < 1) {
		bad("merge_rate must be in [0, 1), got %g", c.MergeRate)
	}
	if c.PrefixCacheBlocks < 0 {
		bad("prefix_cache_blocks must be >= 0, got %d", c.PrefixCacheBlocks)
	}
	if c.PrefixCacheBlocks > 0 && c.PrefixBlockTokens < 1 {
		bad("prefix_block_tokens must be >= 1 when the prefix cache is on, got %d", c.PrefixBlockTokens)
	}
	if c.Reasoning && c.ReasoningTokens < 1 {
		bad("reasoning_tokens must be >= 1 when reasoning is on, got %d", c.ReasoningTokens)
	}
	if err := validFlavor(c.Flavor); err != nil {
		bad("%v", err)
	}
	errs = append(errs, c.validateRates()...)
	return errors.Join(errs...)
}

// validateRates checks the fault fractions; they share one draw per
// request, so together they must not exceed 1.
func (c Config) validateRates() []error {
	var errs []error
	sum := 0.0
	for _, r := range c.faultRates() {
		if !(r.rate >= 0 && r.rate <= 1) {
			errs = append(errs, fmt.Errorf("sim: %s must be in [0, 1], got %g", r.name, r.rate))
			continue
		}
		sum += r.rate
	}
	if len(errs) == 0 && sum > 1+1e-9 {
		errs = append(errs, fmt.Errorf("sim: fault rates must add up to at most 1, got %g", sum))
	}
	return errs
}

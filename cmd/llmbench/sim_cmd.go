package main

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// simCmd serves the simulator standalone, for demos and for measuring the
// client from another process.
type simCmd struct {
	Addr            string        `default:"127.0.0.1:8000" help:"Address to listen on."`
	GRPCAddr        string        `name:"grpc-addr" help:"Also serve Triton's KServe v2 gRPC API (api=\"triton\", --service-kind triton) on this address, e.g. 127.0.0.1:8001 (default: not served)."`
	Seed            int64         `help:"Seed for jitter, words and faults."`
	TTFT            time.Duration `name:"ttft" default:"20ms" help:"Fixed prefill time."`
	PrefillPerToken time.Duration `default:"20us" help:"Prefill time per input token."`
	ITL             time.Duration `name:"itl" default:"8ms" help:"Inter-token latency with one sequence decoding."`
	ITLPerSeq       time.Duration `name:"itl-per-seq" default:"250us" help:"ITL added per extra sequence decoding."`
	MaxBatch        int           `default:"64" help:"Sequences decoded at once; more requests queue."`
	Jitter          float64       `default:"0.05" help:"Relative jitter of every delay."`
	Drift           string        `help:"Drift of the server's speed, multiplying every delay: a number is run-to-run drift, each start drawing a speed factor lognormal with this sigma (0.05: about 5% between starts; the factor is logged); sine(AMPLITUDE,PERIOD), e.g. sine(10%,60s), is drift within the run, the factor 1+AMPLITUDE·sin(2πt/PERIOD) at t since the start (default: none)."`
	DriftSeed       int64         `name:"drift-seed" help:"Seed of the drift draw (0: a fresh one per start)."`
	OutputTokens    int           `default:"128" help:"Output length when a request sets no max_tokens."`
	Model           string        `default:"llmbench-sim" help:"Model name reported."`
	ErrorRate429    float64       `name:"error-rate-429" help:"Fraction of requests answered 429."`
	ErrorRate500    float64       `name:"error-rate-500" help:"Fraction of requests answered 500."`
	ResetRate       float64       `help:"Fraction of streams cut mid-way."`
	MalformedRate   float64       `help:"Fraction of streams with a malformed event."`
	StallRate       float64       `help:"Fraction of streams that stall."`
	Stall           time.Duration `default:"1s" help:"Length of a stall."`
	Reasoning       bool          `help:"Stream reasoning_content before the answer."`
	ReasoningTokens int           `default:"32" help:"Reasoning tokens per response."`
	ContextTokens   int           `help:"Context window (0: unlimited): the ollama flavor truncates longer prompts, vllm refuses prompt+max_tokens beyond it with 400."`
	MergeRate       float64       `help:"Fraction of streamed tokens sent together with the next one (Ollama merges multi-byte pieces)."`
	StrictModel     bool          `help:"Answer 404 to requests naming a model other than --model."`
	Flavor          string        `default:"vllm" enum:"vllm,ollama" help:"Stream format to imitate: vllm (role-only first chunk, finish-only delta) or ollama (role on every delta, empty last content chunk, zero-filled usage on completions chunks)."`

	PrefixCacheBlocks     int  `help:"Prefix cache size in blocks of --prefix-block-tokens (0: no cache). A prompt's resident leading blocks skip prefill and are reported as cached tokens in usage."`
	NoPromptTokensDetails bool `help:"Leave prompt_tokens_details (the cached tokens) out of chat and completions usage, as vLLM does unless started with --enable-prompt-tokens-details: the prefix cache's hits are then in /metrics only."`
	PrefixBlockTokens     int  `default:"16" help:"Prefix cache block size in tokens (words); only whole blocks are cached."`
}

func (c *simCmd) Run(e *env) error {
	sigma, wave, err := c.drift()
	if err != nil {
		return err
	}
	cfg := sim.Config{
		Addr: c.Addr, GRPCAddr: c.GRPCAddr, Seed: c.Seed, TTFT: c.TTFT, PrefillPerToken: c.PrefillPerToken, ITL: c.ITL,
		ITLPerSeq: c.ITLPerSeq, MaxBatch: c.MaxBatch, Jitter: c.Jitter, Drift: sigma, DriftWave: wave, DriftSeed: c.DriftSeed, DefaultOutputTokens: c.OutputTokens,
		Model: c.Model, ErrorRate429: c.ErrorRate429, ErrorRate500: c.ErrorRate500, ResetRate: c.ResetRate,
		MalformedRate: c.MalformedRate, StallRate: c.StallRate, Stall: c.Stall,
		Reasoning: c.Reasoning, ReasoningTokens: c.ReasoningTokens, Flavor: sim.Flavor(c.Flavor),
		ContextTokens: c.ContextTokens, MergeRate: c.MergeRate, StrictModel: c.StrictModel,
		PrefixCacheBlocks: c.PrefixCacheBlocks, PrefixBlockTokens: c.PrefixBlockTokens, HidePromptTokensDetails: c.NoPromptTokensDetails,
	}
	if err := cfg.Validate(); err != nil {
		return invalid("%w", err)
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		return runFailed("%w", err)
	}
	fmt.Fprintf(e.stdout, "llmbench simulator serving OpenAI API at %s/v1 (model %s); Ctrl-C stops\n", srv.URL(), c.Model)
	if srv.GRPCURL() != "" {
		fmt.Fprintf(e.stdout, "and Triton's KServe v2 gRPC API at %s\n", srv.GRPCURL())
	}
	<-e.ctx.Done()
	return srv.Close()
}

// drift reads --drift (sim.ParseDrift); unset is no drift.
func (c *simCmd) drift() (float64, sim.Wave, error) {
	if c.Drift == "" {
		return 0, sim.Wave{}, nil
	}
	sigma, wave, err := sim.ParseDrift(c.Drift)
	if err != nil {
		return 0, sim.Wave{}, invalid("--drift: %w", err)
	}
	return sigma, wave, nil
}

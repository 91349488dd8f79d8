// Package gpflags owns GenAI-Perf's command line as llmbench takes it:
// the flags of profile and analyze (names, defaults, help), the rules by
// which their values are refused, with GenAI-Perf's messages, and the
// endpoint, prompts and point they describe. cmd/llmbench declares the
// commands and writes the artifacts; what the flags mean is here, so
// the CLI stays wiring.
package gpflags

import (
	"time"
)

// Profile are the flags of one measured point. They are shared with
// analyze, which takes every profile flag (as GenAI-Perf's analyze does)
// and derives each sweep point from a copy with the swept flag changed.
// The struct tags are kong's: cmd/llmbench embeds Profile in its
// profile and analyze commands, so its fields are their flags, in this
// order in --help.
type Profile struct {
	Model         []string `short:"m" required:"" sep:"none" help:"Model name(s) to benchmark; with several (-m a b), each prompt names one of them."`
	URL           []string `short:"u" default:"localhost:8000" sep:"none" help:"Server as host:port (GenAI-Perf style), a full http(s) URL, or sim:// for the built-in simulator (sim://?max_batch=8&itl=5ms). Under --service-kind triton: host:port or grpc(s)://host:port of Triton's gRPC port, localhost:8001 by default. Repeat -u for replicas of one model: requests are spread over them by --url-selection."`
	URLSelection  string   `default:"round_robin" enum:"round_robin,least_in_flight" help:"How requests are spread over several -u replicas: round_robin (in request order) or least_in_flight (to the replica with the fewest requests in flight)."`
	SourceAddress []string `sep:"none" help:"Local address or range (127.0.0.2-127.0.0.9) outgoing connections are bound to in turn, repeatable: each source address has its own ~28k ephemeral ports to a server."`
	EndpointType  string   `default:"chat" help:"Endpoint type: GenAI-Perf's chat, completions, embeddings, generate (Triton's HTTP generate extension, v2/models/{model}/generate[_stream]), huggingface_generate (TGI, /generate[_stream]) kserve (Triton's KServe v2 gRPC API, as --service-kind triton), multimodal (chat with images and audio as content parts) or image_retrieval (pictures to v1/infer), or llmbench's responses (OpenAI Responses, /v1/responses), messages (Anthropic Messages, /v1/messages) or tgi (as huggingface_generate)."`
	Endpoint      string   `help:"Custom URL path, overriding the endpoint type's default."`
	Streaming     bool     `help:"Ask for streamed (SSE) responses."`

	ModelSelectionStrategy string `default:"round_robin" enum:"round_robin,random" help:"How prompts get their model when -m names several: round_robin (prompt i gets model i mod n) or random (uniform, seeded by --random-seed)."`
	ServiceKind            string `default:"openai" help:"GenAI-Perf's service kind: openai (OpenAI-compatible HTTP) or triton (Triton's KServe v2 gRPC API, ModelStreamInfer with --streaming); tensorrtllm_engine and dynamic_grpc are refused."`
	Backend                string `help:"GenAI-Perf's Triton backend under --service-kind triton: tensorrtllm (default; text_input, max_tokens, min_length tensors) or vllm (text_input and sampling_parameters)."`

	Concurrency         int     `help:"Closed loop: keep exactly N requests in flight (default 1)."`
	RequestRate         float64 `help:"Open loop: send this many requests per second."`
	RequestDistribution string  `default:"constant" enum:"constant,poisson,gamma" help:"Arrival process under --request-rate: constant (GenAI-Perf's), poisson or gamma."`
	Burstiness          float64 `default:"1.0" help:"Gamma arrivals' shape: <1 burstier than Poisson, >1 more regular."`
	MaxConcurrency      int     `help:"Cap on requests in flight under --request-rate (0: none)."`
	// The ramps are AIPerf's flags, in seconds.
	ConcurrencyRampDuration float64      `help:"Start the --concurrency (or --session-concurrency) workers spread over this many seconds, so the load grows from 1 (AIPerf's flag)."`
	RequestRateRampDuration float64      `help:"Raise --request-rate linearly from 0 over this many seconds (AIPerf's flag)."`
	RequestCount            RequestCount `aliases:"num-requests" help:"Measured requests to send (default max(10, 2×load)), or auto: until the steady-state rule is met (--steady-*)."`
	MeasurementInterval     int          `short:"p" help:"Measure in windows of this many milliseconds instead of a request count, until the last 3 agree within --stability-percentage (perf_analyzer's windowed stop; at most 10 windows)."`
	StabilityPercentage     float64      `short:"s" default:"999" help:"With --measurement-interval: the last 3 windows' throughput and mean latency must agree within this share (max/min ≤ 1 + P/100); the windows before them are the warm-up. GenAI-Perf's default 999 stops after 3 windows unless one is empty or 11× another."`
	WarmupRequestCount      int          `aliases:"num-warmup-requests" help:"Requests sent first and excluded from every metric (sessions, with --session-concurrency)."`
	SessionFlags            `embed:""`
	SteadyFlags             `embed:""`

	SyntheticInputTokensMean      int  `default:"550" aliases:"isl" help:"Mean synthetic prompt length."`
	SyntheticInputTokensStddev    int  `help:"Standard deviation of the synthetic prompt length."`
	OutputTokensMean              int  `aliases:"osl" help:"Mean requested output length (max_tokens); unset sends none."`
	OutputTokensStddev            int  `help:"Standard deviation of the requested output length."`
	OutputTokensMeanDeterministic bool `help:"Also send min_tokens = max_tokens so the output length is fixed."`
	NumDatasetEntries             int  `default:"100" aliases:"num-prompts" help:"Distinct prompts, cycled through."`
	BatchSizeText                 int  `name:"batch-size-text" aliases:"batch-size" short:"b" default:"1" help:"Texts per request: passages per query with --endpoint-type rankings (GenAI-Perf's flag; other types take 1)."`
	MediaFlags                    `embed:""`
	NumPrefixPrompts              int      `help:"Size of a pool of shared prefixes, one prepended to each prompt."`
	PrefixPromptLength            int      `default:"100" help:"Length of each shared prefix."`
	RandomSeed                    int      `help:"Seed for prompts and arrivals."`
	InputFile                     string   `help:"Prompts from a file: FILE.jsonl (GenAI-Perf's {\"text\"|\"text_input\", \"output_length\", \"image\", \"audio\"} lines) or payload:FILE.jsonl (a Mooncake-style trace: timestamp, input_length, output_length, hash_ids)."`
	FixedSchedule                 bool     `help:"Send each payload entry at its own timestamp (needs --input-file payload:FILE with timestamps)."`
	ExtraInputs                   []string `sep:"none" help:"name:value merged into every request body (repeatable)."`
	Header                        []string `short:"H" sep:"none" help:"Name:Value request header (repeatable); never written to artifacts. Host, Content-Length and Transfer-Encoding are the client's to set and refused."`
	APIKey                        string   `name:"api-key" help:"API key sent as 'Authorization: Bearer KEY' (as AIPerf and vLLM bench do), or as 'x-api-key: KEY' with --endpoint-type messages (as Anthropic takes it); never written to artifacts or logs, never read from the environment."`
	Goodput                       []string `short:"g" sep:"none" help:"Goodput SLOs as metric:value (ms for times), e.g. time_to_first_token:500."`
	Tokenizer                     string   `help:"Tokenizer for exact ISL/OSL: a tokenizer.json, a folder holding one, or a Hugging Face model id in the local cache."`
	TokenCount                    string   `default:"auto" enum:"auto,tokenizer,usage,chunks" help:"Token counting: auto (tokenizer when given, else usage), tokenizer, usage (server-reported) or chunks."`
	TokenizerRevision             string   `default:"main" help:"Hugging Face Hub revision (branch, tag or commit id) of a --tokenizer given as a model id."`
	// Telemetry is not part of a point's identity (analyze's checkpoint):
	// what is scraped does not change what is measured.
	Telemetry                Telemetry `embed:""`
	Strict                   bool      `help:"Exit 3 when the client, not the server, limited the load (client_limited: its CPU, or a schedule it could not keep)."`
	TokenizerTrustRemoteCode bool      `help:"Accepted and recorded for GenAI-Perf scripts; llmbench's tokenizer reads tokenizer.json and runs no code, so it changes nothing."`

	ArtifactDir       string `default:"artifacts" help:"Base directory for artifacts."`
	ProfileExportFile string `default:"profile_export.json" help:"Name of the raw export file (a bare name)."`
	GeneratePlots     bool   `help:"Also render PNG plots (TTFT and latency distributions, TTFT vs ISL, ITL vs token position, ISL vs OSL) into <run>/plots/."`

	RequestTimeout    time.Duration `default:"10m" help:"Per-request timeout, send to last byte."`
	StreamIdleTimeout time.Duration `default:"60s" help:"Fail a request the server is silent on for this long: waiting for the response headers, or between two reads of the body, streamed or not. A non-streamed answer sends nothing until it is complete: raise it above the longest generation (0: off)."`
	MaxResponseSize   string        `default:"256MiB" help:"Fail a response whose body is larger (error class oversize): bytes, or with a unit (KiB, MiB, GiB, KB, MB, GB)."`
	MaxSSELineSize    string        `name:"max-sse-line-size" default:"16MiB" help:"Fail a stream with an SSE line longer than this (error class oversize); same units."`
	MaxErrorRate      string        `help:"Error budget: stop the run (exit 3, what finished is written) once more than this share of a point's requests failed, e.g. 5% or 0.05; judged over at least 20 requests. Without it the run never stops, but a point where more than 10% failed makes it exit 3 when it ends; 100% accepts any share."`
	Insecure          bool          `help:"Skip TLS certificate verification."`
	Verbose           bool          `short:"v" help:"Log more."`
}

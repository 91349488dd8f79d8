package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// profileFlags are the flags of one measured point. They are shared with
// analyze, which takes every profile flag (as GenAI-Perf's analyze does)
// and derives each sweep point from a copy with the swept flag changed.
type profileFlags struct {
	Model         []string `short:"m" required:"" sep:"none" help:"Model name(s) to benchmark; with several (-m a b), each prompt names one of them."`
	URL           []string `short:"u" default:"localhost:8000" sep:"none" help:"Server as host:port (GenAI-Perf style), a full http(s) URL, or sim:// for the built-in simulator (sim://?max_batch=8&itl=5ms). Under --service-kind triton: host:port or grpc(s)://host:port of Triton's gRPC port, localhost:8001 by default. Repeat -u for replicas of one model: requests are spread over them by --url-selection."`
	URLSelection  string   `default:"round_robin" enum:"round_robin,least_in_flight" help:"How requests are spread over several -u replicas: round_robin (in request order) or least_in_flight (to the replica with the fewest requests in flight)."`
	SourceAddress []string `sep:"none" help:"Local address or range (127.0.0.2-127.0.0.9) outgoing connections are bound to in turn, repeatable: each source address has its own ~28k ephemeral ports to a server."`
	EndpointType  string   `default:"chat" help:"Endpoint type: GenAI-Perf's chat, completions, embeddings, generate (Triton's HTTP generate extension, v2/models/{model}/generate[_stream]), huggingface_generate (TGI, /generate[_stream]) or kserve (Triton's KServe v2 gRPC API, as --service-kind triton), or llmbench's responses (OpenAI Responses, /v1/responses), messages (Anthropic Messages, /v1/messages) or tgi (as huggingface_generate)."`
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
	RequestCount            requestCount `aliases:"num-requests" help:"Measured requests to send (default max(10, 2×load)), or auto: until the steady-state rule is met (--steady-*)."`
	MeasurementInterval     int          `short:"p" help:"Measure for this many milliseconds instead of a request count."`
	WarmupRequestCount      int          `aliases:"num-warmup-requests" help:"Requests sent first and excluded from every metric (sessions, with --session-concurrency)."`
	SessionFlags            `embed:""`
	SteadyFlags             `embed:""`

	SyntheticInputTokensMean      int      `default:"550" aliases:"isl" help:"Mean synthetic prompt length."`
	SyntheticInputTokensStddev    int      `help:"Standard deviation of the synthetic prompt length."`
	OutputTokensMean              int      `aliases:"osl" help:"Mean requested output length (max_tokens); unset sends none."`
	OutputTokensStddev            int      `help:"Standard deviation of the requested output length."`
	OutputTokensMeanDeterministic bool     `help:"Also send min_tokens = max_tokens so the output length is fixed."`
	NumDatasetEntries             int      `default:"100" aliases:"num-prompts" help:"Distinct prompts, cycled through."`
	BatchSizeText                 int      `name:"batch-size-text" aliases:"batch-size" short:"b" default:"1" help:"Texts per request: passages per query with --endpoint-type rankings (GenAI-Perf's flag; other types take 1)."`
	NumPrefixPrompts              int      `help:"Size of a pool of shared prefixes, one prepended to each prompt."`
	PrefixPromptLength            int      `default:"100" help:"Length of each shared prefix."`
	RandomSeed                    int      `help:"Seed for prompts and arrivals."`
	InputFile                     string   `help:"Prompts from a file: FILE.jsonl (GenAI-Perf's {\"text\"|\"text_input\", \"output_length\"} lines) or payload:FILE.jsonl (a Mooncake-style trace: timestamp, input_length, output_length, hash_ids)."`
	FixedSchedule                 bool     `help:"Send each payload entry at its own timestamp (needs --input-file payload:FILE with timestamps)."`
	ExtraInputs                   []string `sep:"none" help:"name:value merged into every request body (repeatable)."`
	Header                        []string `short:"H" sep:"none" help:"Name:Value request header (repeatable); never written to artifacts. Host, Content-Length and Transfer-Encoding are the client's to set and refused."`
	APIKey                        string   `name:"api-key" help:"API key sent as 'Authorization: Bearer KEY' (as AIPerf and vLLM bench do), or as 'x-api-key: KEY' with --endpoint-type messages (as Anthropic takes it); never written to artifacts or logs, never read from the environment."`
	Goodput                       []string `short:"g" sep:"none" help:"Goodput SLOs as metric:value (ms for times), e.g. time_to_first_token:500."`
	Tokenizer                     string   `help:"Tokenizer for exact ISL/OSL: a tokenizer.json, a folder holding one, or a Hugging Face model id in the local cache."`
	TokenCount                    string   `default:"auto" enum:"auto,tokenizer,usage,chunks" help:"Token counting: auto (tokenizer when given, else usage), tokenizer, usage (server-reported) or chunks."`
	TokenizerRevision             string   `default:"main" help:"Hugging Face Hub revision (branch, tag or commit id) of a --tokenizer given as a model id."`
	// Telemetry is not part of a point's identity (configExcluded):
	// what is scraped does not change what is measured.
	Telemetry                telemetryFlags `embed:""`
	Strict                   bool           `help:"Exit 3 when the client, not the server, limited the load (client_limited: its CPU, or a schedule it could not keep)."`
	TokenizerTrustRemoteCode bool           `help:"Accepted and recorded for GenAI-Perf scripts; llmbench's tokenizer reads tokenizer.json and runs no code, so it changes nothing."`

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

// compiled is one GenAI-Perf point compiled from its flags: the
// experiment it runs as, the point itself, and the GenAI-Perf description
// its artifacts echo.
type compiled struct {
	exp   *runtime.Experiment
	point runtime.PointSpec
	run   genaiperf.Run
}

// compile validates the flags and turns them into the experiment they
// describe, so `profile` and `analyze` run through the same executor as
// `run`; the experiment is named after the GenAI-Perf folder. The
// tokenizer is loaded here, so a bad one is refused before any traffic.
func (c *profileFlags) compile() (compiled, error) {
	if err := c.validate(); err != nil {
		return compiled{}, err
	}
	endpoint, err := c.endpoint()
	if err != nil {
		return compiled{}, err
	}
	slos, err := parseGoodput(c.Goodput)
	if err != nil {
		return compiled{}, err
	}
	if c.Tokenizer != "" {
		if _, err := runtime.LoadTokenizerRevision(c.Tokenizer, c.TokenizerRevision); err != nil {
			return compiled{}, invalid("--tokenizer: %w", err)
		}
	}
	if _, err := runtime.ParseCountMode(c.TokenCount, c.Tokenizer != ""); err != nil {
		return compiled{}, invalid("--token-count: %w", err)
	}
	src, err := c.source()
	if err != nil {
		return compiled{}, err
	}
	if err := checkDatasetMemory(src); err != nil {
		return compiled{}, err
	}
	p := c.point()
	run := c.describe(endpoint)
	run.Tokenizer = c.Tokenizer
	if err := exportFilesWritable(&run); err != nil {
		return compiled{}, err
	}
	exp := &runtime.Experiment{Name: run.DirName(), Endpoint: endpoint, Dataset: src, Load: p.Load, Requests: p.Stop.Requests,
		Duration: p.Stop.Duration, Sessions: p.Stop.Sessions, Warmup: p.Warmup, Seed: p.Seed, Goodput: slos, Repeats: 1}
	c.Telemetry.apply(exp)
	point := runtime.PointSpec{Params: runtime.ParamsOf(p.Load), Load: p.Load, Dataset: src, Stop: p.Stop}
	exp.Planned = []runtime.PointSpec{point}
	if c.MaxErrorRate != "" {
		if exp.ErrorBudget, err = runtime.ParseErrorBudget(c.MaxErrorRate); err != nil {
			return compiled{}, invalid("--max-error-rate: %w", err)
		}
	}
	return compiled{exp: exp, point: point, run: run}, nil
}

func (c *profileFlags) validate() error {
	if err := c.Telemetry.check(); err != nil {
		return err
	}
	if _, err := c.steadyRule(); err != nil {
		return err
	}
	for i, m := range c.Model {
		if strings.TrimSpace(m) == "" {
			return invalid("--model: got an empty name at position %d of %q, want the model names the server serves", i+1, c.Model)
		}
	}
	if err := checkServiceKind(c.ServiceKind); err != nil {
		return err
	}
	c.tritonDefaults()
	switch {
	case c.Backend != "" && c.Backend != "tensorrtllm" && c.Backend != "vllm":
		return invalid("--backend: got %q, want tensorrtllm or vllm", c.Backend)
	case strings.TrimSpace(c.TokenizerRevision) == "":
		return invalid("--tokenizer-revision: got an empty string, want a branch, tag or commit id (default main)")
	case c.Concurrency < 0:
		return invalid("--concurrency: got %d, want >= 1", c.Concurrency)
	case c.RequestRate < 0:
		return invalid("--request-rate: got %g, want > 0", c.RequestRate)
	case c.Concurrency > 0 && c.RequestRate > 0:
		return invalid("--concurrency and --request-rate are mutually exclusive")
	case c.RequestCount.N > 0 && c.MeasurementInterval > 0:
		return invalid("--request-count and --measurement-interval are mutually exclusive")
	case c.RequestCount.N < 0 || c.MeasurementInterval < 0 || c.WarmupRequestCount < 0:
		return invalid("--request-count, --measurement-interval and --warmup-request-count must not be negative")
	case c.SyntheticInputTokensMean < 0 || c.SyntheticInputTokensStddev < 0 || c.OutputTokensMean < 0 || c.OutputTokensStddev < 0:
		return invalid("token length means and standard deviations must not be negative")
	case c.NumDatasetEntries <= 0:
		return invalid("--num-dataset-entries: got %d, want > 0", c.NumDatasetEntries)
	case (c.OutputTokensStddev > 0 || c.OutputTokensMeanDeterministic) && c.OutputTokensMean == 0:
		return invalid("--output-tokens-stddev and --output-tokens-mean-deterministic need --output-tokens-mean")
	case c.FixedSchedule && !strings.HasPrefix(c.InputFile, "payload:"):
		return invalid("--fixed-schedule needs --input-file payload:FILE with timestamps")
	case c.FixedSchedule && (c.Concurrency > 0 || c.RequestRate > 0):
		return invalid("--fixed-schedule, --concurrency and --request-rate are mutually exclusive")
	case c.MaxConcurrency < 0:
		return invalid("--max-concurrency: got %d, want >= 0", c.MaxConcurrency)
	case !(c.ConcurrencyRampDuration >= 0 && c.RequestRateRampDuration >= 0) || math.IsInf(c.ConcurrencyRampDuration+c.RequestRateRampDuration, 0):
		return invalid("--concurrency-ramp-duration and --request-rate-ramp-duration: want seconds >= 0")
	case c.RequestRateRampDuration > 0 && c.RequestRate == 0:
		return invalid("--request-rate-ramp-duration needs --request-rate (use --concurrency-ramp-duration for a closed loop)")
	case c.ConcurrencyRampDuration > 0 && c.RequestRate > 0:
		return invalid("--concurrency-ramp-duration ramps a closed loop; with --request-rate use --request-rate-ramp-duration")
	case (c.ConcurrencyRampDuration > 0 || c.RequestRateRampDuration > 0) && c.FixedSchedule:
		return invalid("--fixed-schedule keeps the payload's own timing: no ramp")
	case strings.ContainsAny(c.ProfileExportFile, `/\`) || c.ProfileExportFile == "" || strings.Trim(c.ProfileExportFile, ".") == "":
		return invalid("--profile-export-file: got %q, want a bare file name (use --artifact-dir for the folder)", c.ProfileExportFile)
	}
	if c.BatchSizeText < 1 || (c.BatchSizeText > 1 && c.EndpointType != string(transport.Rankings)) {
		return invalid("--batch-size-text: got %d, want 1, or more with --endpoint-type rankings (passages per query)", c.BatchSizeText)
	}
	if err := c.validateSessions(); err != nil {
		return err
	}
	return c.validateValues()
}

// validateValues refuses values a flag's type admits but no run can use:
// not-a-number rates, timeouts that would disable themselves, negative
// counts, a schedule that would take longer than a day, a URL llmbench
// cannot send to.
func (c *profileFlags) validateValues() error {
	switch {
	case math.IsNaN(c.RequestRate) || math.IsInf(c.RequestRate, 0):
		return invalid("--request-rate: got %g, want a finite number of requests per second", c.RequestRate)
	case math.IsNaN(c.Burstiness) || math.IsInf(c.Burstiness, 0) || c.Burstiness <= 0:
		return invalid("--burstiness: got %g, want a finite number > 0", c.Burstiness)
	case c.RequestTimeout <= 0:
		return invalid("--request-timeout: got %s, want a positive duration (it bounds every request)", c.RequestTimeout)
	case c.StreamIdleTimeout < 0:
		return invalid("--stream-idle-timeout: got %s, want a duration >= 0 (0: off)", c.StreamIdleTimeout)
	case c.NumPrefixPrompts < 0 || c.PrefixPromptLength < 0:
		return invalid("--num-prefix-prompts and --prefix-prompt-length must not be negative")
	}
	if _, _, err := c.sizeLimits(); err != nil {
		return err
	}
	if p := c.point(); p.Stop.Requests > 0 {
		if err := runtime.CheckSchedule(p.Load, p.Stop.Requests+p.Warmup, "requests"); err != nil { // the rule rate() in a scenario follows
			return invalid("--request-rate %g: %w (--request-count)", c.RequestRate, err)
		}
	}
	for _, u := range c.URL {
		if err := c.checkURL(u); err != nil {
			return err
		}
	}
	return nil
}

// checkURL refuses one -u the endpoint type cannot send to.
func (c *profileFlags) checkURL(u string) error {
	if c.triton() && !strings.HasPrefix(u, "sim://") {
		if _, err := transport.ParseTritonURL(u); err != nil {
			return invalid("--url: %w", err)
		}
		return nil
	}
	return checkURL(u)
}

// sizeLimits parses --max-response-size and --max-sse-line-size.
func (c *profileFlags) sizeLimits() (response, line int64, err error) {
	if response, err = transport.ParseSize(c.MaxResponseSize); err != nil {
		return 0, 0, invalid("--max-response-size: %w", err)
	}
	if line, err = transport.ParseSize(c.MaxSSELineSize); err != nil {
		return 0, 0, invalid("--max-sse-line-size: %w", err)
	}
	return response, line, nil
}

// exportFilesWritable refuses a --profile-export-file whose files would
// land on a folder already in the point's place (the run would fail when
// the point starts, after its prompts were drawn).
func exportFilesWritable(run *genaiperf.Run) error {
	jsonName, csvName := genaiperf.ExportFileNames(run.ProfileExportFile)
	for _, name := range []string{run.ProfileExportFile, jsonName, csvName} {
		path := filepath.Join(run.Dir(), name)
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return invalid("--profile-export-file %s: %s is a folder, want a file name free in the point's folder", run.ProfileExportFile, path)
		}
	}
	return nil
}

// checkURL refuses a server address no request could be sent to: empty,
// or with a scheme other than http, https or sim.
func checkURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return invalid("--url: got an empty address, want host:port, http(s)://host:port or sim://")
	}
	// Redacted as the URL it is taken for: "user:pw@host:port" is read
	// with the scheme "user" on its own, and would keep its password.
	shown := runtime.RedactURL(runtime.BaseURL(raw))
	if scheme, _, ok := strings.Cut(raw, "://"); ok && scheme != "http" && scheme != "https" && scheme != "sim" {
		if !isScheme(scheme) { // "user:pw@host://…": what precedes :// may be a credential
			return invalid("--url: the text before :// is not a scheme, want host:port, http(s)://host:port or sim://")
		}
		return invalid("--url %s: scheme %q is not served, want http, https or sim", shown, scheme)
	}
	if !strings.HasPrefix(raw, "sim://") {
		if err := transport.CheckURL(runtime.BaseURL(raw)); err != nil {
			return invalid("--url %s: %v", shown, err)
		}
	}
	return nil
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, +, - and .).
func isScheme(s string) bool {
	for i, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && ('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// notBuilt says, per GenAI-Perf service kind llmbench does not speak, what
// is missing and what to do instead.
var notBuilt = map[string]string{
	"tensorrtllm_engine": "driving a TensorRT-LLM engine in-process (perf_analyzer's triton_c_api) is not built yet; " +
		"serve the engine with trtllm-serve and use --service-kind openai",
	"dynamic_grpc": "custom gRPC services (--grpc-method) are not built yet; llmbench speaks OpenAI-compatible HTTP (--service-kind openai)",
}

// checkServiceKind accepts GenAI-Perf's openai and triton and refuses the
// kinds llmbench cannot send to with the reason, rather than sending
// requests to a server that expects another protocol.
func checkServiceKind(kind string) error {
	if kind == "openai" || kind == "triton" {
		return nil
	}
	if why, ok := notBuilt[kind]; ok {
		return invalid("--service-kind %s: %s", kind, why)
	}
	return invalid("--service-kind: got %q, want openai or triton (GenAI-Perf's tensorrtllm_engine and dynamic_grpc are not built yet)", kind)
}

// triton reports a run against Triton's gRPC API: --service-kind triton,
// or GenAI-Perf's --endpoint-type kserve, which names the same API.
func (c *profileFlags) triton() bool {
	return c.ServiceKind == "triton" || c.EndpointType == "kserve"
}

// tritonDefaults applies GenAI-Perf's defaults of --service-kind triton:
// endpoint type kserve (the flag's default chat means unset here), the
// tensorrtllm backend, and Triton's gRPC port 8001 for the default -u.
func (c *profileFlags) tritonDefaults() {
	if !c.triton() {
		return
	}
	c.ServiceKind = "triton"
	if c.EndpointType == "chat" {
		c.EndpointType = "kserve"
	}
	if c.Backend == "" {
		c.Backend = transport.TensorRTLLM
	}
	if len(c.URL) == 1 && c.URL[0] == "localhost:8000" {
		c.URL[0] = "localhost:" + transport.TritonPort
	}
}

// warnInert logs the GenAI-Perf flags that were given but cannot change
// what llmbench sends or counts, so a user porting a script learns it;
// once per command, not once per analyze point.
func (c *profileFlags) warnInert() {
	if c.Backend != "" && !c.triton() {
		log.Warn().Str("backend", c.Backend).Msg("--backend only applies to Triton (--service-kind triton); recorded in input_config, no effect on OpenAI requests")
	}
	if c.TokenizerTrustRemoteCode {
		log.Warn().Msg("--tokenizer-trust-remote-code has no effect: llmbench's tokenizer reads tokenizer.json and runs no code; recorded in input_config")
	}
	if c.TokenizerRevision != "main" && c.Tokenizer == "" {
		log.Warn().Str("revision", c.TokenizerRevision).Msg("--tokenizer-revision has no effect without --tokenizer: no tokenizer is loaded")
	}
}

// genaiPerfTypes maps GenAI-Perf's names of the endpoint types llmbench
// speaks under another name to its APIs: generate is Triton's HTTP
// generate extension (llmbench's kserve API), huggingface_generate TGI.
var genaiPerfTypes = map[string]transport.API{
	"generate":             transport.KServe,
	"huggingface_generate": transport.TGI,
}

// endpointAPI is the API an --endpoint-type names. GenAI-Perf's kserve is
// KServe v2 over gRPC, llmbench's triton API — not its HTTP kserve API,
// which GenAI-Perf calls generate.
func endpointAPI(typ string) (transport.API, error) {
	if api, ok := genaiPerfTypes[typ]; ok {
		return api, nil
	}
	if typ == "kserve" {
		return transport.Triton, nil
	}
	api, err := transport.ParseAPI(typ)
	if err != nil {
		return "", invalid("--endpoint-type: %w", err)
	}
	return api, nil
}

func (c *profileFlags) endpoint() (runtime.Endpoint, error) {
	api, err := endpointAPI(c.EndpointType)
	if err != nil {
		return runtime.Endpoint{}, err
	}
	if c.ServiceKind == "triton" && api != transport.Triton {
		return runtime.Endpoint{}, invalid("--endpoint-type %s: --service-kind triton speaks Triton's KServe v2 gRPC API (endpoint type kserve); "+
			"use --service-kind openai for %s", c.EndpointType, c.EndpointType)
	}
	if len(c.Model) > 1 && (api == transport.KServe || api == transport.TGI) {
		return runtime.Endpoint{}, invalid("-m: got %d models, but --endpoint-type %s sends to one "+
			"(Triton's generate path names it; a TGI server serves one); run once per model", len(c.Model), c.EndpointType)
	}
	extra, err := parseExtraInputs(c.ExtraInputs)
	if err != nil {
		return runtime.Endpoint{}, err
	}
	headers, err := parseHeaders(c.Header)
	if err != nil {
		return runtime.Endpoint{}, err
	}
	if headers, err = withAPIKey(headers, c.APIKey, api); err != nil {
		return runtime.Endpoint{}, err
	}
	if api == transport.Triton {
		spec := transport.BodySpec{API: api, Model: c.Model[0], Stream: c.Streaming, Extra: extra, Backend: c.Backend}
		if err := transport.CheckTritonBody(spec.Body(transport.Prompt{Text: "x", MaxTokens: 1, MinTokens: 1}), c.Backend); err != nil {
			return runtime.Endpoint{}, invalid("--extra-inputs: %w", err)
		}
	}
	for _, u := range c.URL {
		if u != "sim://" && strings.HasPrefix(u, "sim://") {
			if _, err := runtime.SimConfig(u); err != nil {
				return runtime.Endpoint{}, invalid("--url: %w", err)
			}
		}
	}
	maxResponse, maxLine, err := c.sizeLimits()
	if err != nil {
		return runtime.Endpoint{}, err
	}
	sources, err := sourceAddresses(c.SourceAddress, api)
	if err != nil {
		return runtime.Endpoint{}, err
	}
	urls, selection := replicaFlags(c.URL, c.URLSelection)
	return runtime.Endpoint{
		URLs: urls, URLSelection: selection, SourceAddrs: sources,
		URL: c.URL[0], Path: c.Endpoint, API: api, Stream: c.Streaming && api != transport.Embeddings,
		Model: c.Model[0], Models: c.models(), ModelSelection: c.ModelSelectionStrategy, ModelSeed: uint64(c.RandomSeed),
		Headers: headers, Extra: extra,
		Timeout: c.RequestTimeout, IdleTimeout: c.StreamIdleTimeout, Insecure: c.Insecure,
		MaxResponseSize: maxResponse, MaxSSELineSize: maxLine,
		Tokenizer: c.Tokenizer, TokenizerRevision: c.TokenizerRevision, TokenCount: c.TokenCount,
		Backend: c.tritonBackend(api),
	}, nil
}

// tritonBackend is the Triton backend of a triton endpoint, "" otherwise
// (--backend is then only recorded in input_config).
func (c *profileFlags) tritonBackend(api transport.API) string {
	if api != transport.Triton {
		return ""
	}
	return c.Backend
}

// models is the list requests are spread over, nil for a single model.
func (c *profileFlags) models() []string {
	if len(c.Model) < 2 {
		return nil
	}
	return c.Model
}

func parseGoodput(specs []string) ([]metrics.SLO, error) {
	slos := make([]metrics.SLO, 0, len(specs))
	for _, spec := range specs {
		slo, err := metrics.ParseGoodput(spec)
		if err != nil {
			return nil, invalid("--goodput: %w", err)
		}
		slos = append(slos, slo)
	}
	return slos, nil
}

// source picks the prompts: --input-file when given (with GenAI-Perf's
// output lengths for lines that set none), else GenAI-Perf's synthetic
// prompts. The runtime makes them token-exact under the endpoint's
// tokenizer.
func (c *profileFlags) source() (dataset.Source, error) {
	src, err := c.prompts()
	if err != nil || c.InputFile == "" || c.OutputTokensMean == 0 {
		return src, err
	}
	out := dataset.Normal{Mu: float64(c.OutputTokensMean), Sigma: float64(c.OutputTokensStddev)}
	return dataset.DefaultOutputs{Source: src, Output: out, Seed: uint64(c.RandomSeed), Deterministic: c.OutputTokensMeanDeterministic}, nil
}

// prompts is the prompt source the flags name.
func (c *profileFlags) prompts() (dataset.Source, error) {
	path, isPayload := strings.CutPrefix(c.InputFile, "payload:")
	switch {
	case c.EndpointType == string(transport.Rankings):
		return c.rankings()
	case c.InputFile == "" && c.sessionMode():
		return c.conversations(), nil
	case c.InputFile == "":
		return c.synthetic(), nil
	case strings.HasPrefix(c.InputFile, "synthetic:"):
		return nil, invalid("--input-file %q: named synthetic inputs are not supported yet", c.InputFile)
	case isPayload:
		trace := dataset.Trace{Path: path, Seed: uint64(c.RandomSeed), DelayRatio: c.SessionDelayRatio}
		info, err := trace.Check()
		if err != nil {
			return nil, invalid("--input-file: %w", err)
		}
		if c.FixedSchedule && !info.Timed {
			return nil, invalid("--fixed-schedule: %s has no timestamps", path)
		}
		return trace, nil
	}
	if st, err := os.Stat(c.InputFile); err == nil && st.IsDir() {
		return nil, invalid("--input-file %s: a directory of .jsonl files is not supported yet", c.InputFile)
	}
	jsonl := dataset.JSONL{Path: c.InputFile}
	if _, err := jsonl.Check(); err != nil {
		return nil, invalid("--input-file: %w", err)
	}
	return jsonl, nil
}

// synthetic is GenAI-Perf's synthetic source: lengths int(gauss(mean, sd)).
func (c *profileFlags) synthetic() dataset.Synthetic {
	s := dataset.Synthetic{
		Input:   dataset.Normal{Mu: float64(c.SyntheticInputTokensMean), Sigma: float64(c.SyntheticInputTokensStddev)},
		Entries: c.NumDatasetEntries, Seed: uint64(c.RandomSeed), Deterministic: c.OutputTokensMeanDeterministic,
	}
	if c.OutputTokensMean > 0 {
		s.Output = dataset.Normal{Mu: float64(c.OutputTokensMean), Sigma: float64(c.OutputTokensStddev)}
	}
	if c.NumPrefixPrompts > 0 {
		s.PrefixTokens, s.Prefixes = c.PrefixPromptLength, c.NumPrefixPrompts
	}
	return s
}

func (c *profileFlags) point() runtime.Point {
	if c.sessionMode() {
		return c.sessionPoint()
	}
	load := runtime.Load{Concurrency: c.Concurrency, Rate: c.RequestRate,
		Arrival: runtime.Arrival(c.RequestDistribution), Burstiness: c.Burstiness, MaxConcurrency: c.MaxConcurrency}
	load.RampUp = c.rampUp()
	if c.FixedSchedule { // every entry once, at its timestamp
		load.ReplaySpeed = 1
		return runtime.Point{Load: load, Stop: runtime.Stop{Requests: c.RequestCount.N}, Warmup: c.WarmupRequestCount,
			Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
	}
	if load.Concurrency == 0 && load.Rate == 0 {
		load.Concurrency = 1
	}
	stop := runtime.Stop{Requests: c.RequestCount.N, Duration: time.Duration(c.MeasurementInterval) * time.Millisecond}
	if rule, _ := c.steadyRule(); rule != nil { // validate checked it
		stop = autoStop(rule)
	}
	if stop.Requests == 0 && stop.Duration == 0 {
		stop.Requests = max(10, 2*max(load.Concurrency, int(load.Rate+0.999))) // GenAI-Perf's default
	}
	return runtime.Point{Load: load, Stop: stop, Warmup: c.WarmupRequestCount, Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
}

// rampUp is the ramp the flags ask for: the concurrency ramp for a
// closed loop, the rate ramp for an open one.
func (c *profileFlags) rampUp() time.Duration {
	secs := c.ConcurrencyRampDuration
	if c.RequestRate > 0 {
		secs = c.RequestRateRampDuration
	}
	return time.Duration(secs * float64(time.Second))
}

// runtimeGrace is how long an interrupted point waits for requests in
// flight.
const runtimeGrace = 5 * time.Second

// isPayload reports an --input-file that names a Mooncake-style payload.
func isPayload(file string) bool { return strings.HasPrefix(file, "payload:") }

// describe fills the GenAI-Perf run description echoed in the artifacts.
func (c *profileFlags) describe(e runtime.Endpoint) genaiperf.Run {
	r := genaiperf.DefaultRun(c.Model...)
	r.ModelSelection, r.Backend, r.ServiceKind = c.ModelSelectionStrategy, c.Backend, c.ServiceKind
	r.TokenizerRevision, r.TokenizerTrustRemoteCode = c.TokenizerRevision, c.TokenizerTrustRemoteCode
	// Descriptions reach artifacts, so credentials in the URL or path do not.
	r.EndpointType, r.Streaming, r.URL = c.EndpointType, e.Stream, runtime.RedactURL(c.URL[0])
	r.Endpoint = runtime.RedactURL(strings.TrimLeft(c.Endpoint, " /"))
	r.Stimulus = genaiperf.Stimulus{Concurrency: c.Concurrency, RequestRate: c.RequestRate, FixedSchedule: c.FixedSchedule}
	c.describeSessions(&r)
	r.InputFile = c.InputFile
	r.RequestCount, r.MeasurementInterval, r.WarmupRequestCount = c.RequestCount.N, c.MeasurementInterval, c.WarmupRequestCount
	for _, spec := range c.Goodput {
		name, value, _ := strings.Cut(spec, ":")
		var v float64
		_, _ = fmt.Sscan(value, &v)
		r.Goodput = append(r.Goodput, genaiperf.Goodput{Name: name, Value: v})
	}
	for _, f := range e.Extra {
		r.ExtraInputs = append(r.ExtraInputs, genaiperf.Field{Name: f.Key, Value: f.Value})
	}
	r.NumDatasetEntries, r.RandomSeed = c.NumDatasetEntries, c.RandomSeed
	r.SyntheticTokens = genaiperf.TokenDist{Mean: c.SyntheticInputTokensMean, Stddev: c.SyntheticInputTokensStddev}
	r.OutputTokens = genaiperf.OutputTokens{Mean: c.OutputTokensMean, Stddev: c.OutputTokensStddev, Deterministic: c.OutputTokensMeanDeterministic}
	r.PrefixPrompts, r.PrefixPromptLength = c.NumPrefixPrompts, c.PrefixPromptLength
	r.ArtifactDir, r.ProfileExportFile, r.Version = c.ArtifactDir, c.ProfileExportFile, "llmbench "+version
	r.RequestDistribution = c.RequestDistribution
	if len(c.Telemetry.ServerMetricsURL) > 0 {
		r.ServerMetricsURLs = nil
		for _, u := range c.Telemetry.ServerMetricsURL {
			r.ServerMetricsURLs = append(r.ServerMetricsURLs, runtime.RedactURL(u))
		}
	}
	return r
}

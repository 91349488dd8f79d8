package genaiperf

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// Run describes how a load point was produced: everything GenAI-Perf's
// artifacts print besides the measured statistics (the "input_config" block
// of the JSON, the directory name, the console title) plus the few facts
// llmbench adds. It holds plain values so the command layer can fill it from
// GenAI-Perf flags or from a Starlark scenario alike. Fields are written as
// given; DefaultRun supplies GenAI-Perf's defaults for a profile run.
type Run struct {
	// Subcommand is "profile" or "analyze", echoed in input_config.
	Subcommand string
	// Models are the model names; the first names the artifact directory
	// and is the default tokenizer.
	Models []string
	// ModelSelection is how requests were spread over several Models:
	// "round_robin" (also when empty, GenAI-Perf's default) or "random".
	ModelSelection string
	// EndpointType is "chat", "completions", "embeddings", "generate" or
	// "huggingface_generate" (GenAI-Perf's), or llmbench's "responses",
	// "messages" or "tgi", written as given.
	EndpointType string
	// Streaming says whether responses were requested as SSE streams; the
	// CSV and console hide the streaming-only metrics when it is false.
	Streaming bool
	// URL is the server address as given (GenAI-Perf's -u).
	URL string
	// Endpoint is the URL path without a leading slash; empty means the
	// endpoint type's default ("v1/chat/completions", ...).
	Endpoint string
	// ServiceKind is "openai" for every HTTP endpoint llmbench speaks and
	// "triton" for Triton's KServe v2 gRPC API.
	ServiceKind string
	// Backend is GenAI-Perf's Triton backend as given ("" echoes its
	// default, tensorrtllm); it names a Triton run's directory and shapes
	// no OpenAI request.
	Backend string
	// ServerMetricsURLs are the telemetry sources, echoed in input_config.
	ServerMetricsURLs []string
	// Telemetry is what the point's scrapes came to; nil when nothing was
	// scraped. Its GPUs fill telemetry_stats and the CSV's GPU tables. Not
	// part of the saved run description: telemetry.parquet keeps the
	// samples it is reduced from.
	Telemetry *metrics.TelemetrySummary `json:"-"`
	// TelemetryBlock is llmbench's own account of that telemetry (energy,
	// J/token, the server's view), written as the "telemetry" key of the
	// JSON's "llmbench" block.
	TelemetryBlock json.RawMessage `json:"-"`
	// aggregate is what process-export-files took from the runs it
	// aggregates (Aggregate.Apply); nil for a run of its own.
	aggregate *Aggregate

	// Stimulus is the load: concurrency or request rate.
	Stimulus Stimulus
	// Objective is what an analyze point varies, as GenAI-Perf names its
	// run directory: "concurrency8", "request_rate16",
	// "input_sequence_length512". When set it replaces the stimulus in
	// DirName, because an analyze directory names the swept parameter only.
	Objective string
	// Sweep is the analyze sweep echoed in input_config; nil for profile,
	// which echoes GenAI-Perf's default (concurrency 1 to 1024).
	Sweep *Sweep
	// RequestCount is the number of measured requests asked for, 0 when
	// not given; MeasurementInterval (ms) > 0 selects the interval mode.
	RequestCount        int
	MeasurementInterval int
	// WarmupRequestCount is how many warmup requests were sent first.
	WarmupRequestCount int

	// Goodput holds the goodput SLOs as the user gave them, in order.
	Goodput []Goodput
	// ExtraInputs are the fields merged into every request body, in order;
	// each value is raw JSON.
	ExtraInputs []Field
	// InputFile is the dataset file, "" for synthetic prompts.
	InputFile string
	// NumDatasetEntries is the number of distinct payloads.
	NumDatasetEntries int
	// RandomSeed seeds the dataset generator.
	RandomSeed int
	// SyntheticTokens is the synthetic prompt length distribution.
	SyntheticTokens TokenDist
	// OutputTokens is the requested output length (Mean 0: not set).
	OutputTokens OutputTokens
	// Sessions describes a multi-turn run (GenAI-Perf's --session-*
	// flags); its zero value is GenAI-Perf's default, single turns.
	Sessions SessionConfig
	// PrefixPrompts and PrefixPromptLength describe shared prefixes.
	PrefixPrompts      int
	PrefixPromptLength int
	// Media is the --image-* and --audio-* flags; nil writes GenAI-Perf's
	// defaults (no media).
	Media *MediaConfig `json:",omitempty"`

	// CheckpointDir and EnableCheckpointing echo analyze's checkpoint
	// flags in input_config ("" and false echo GenAI-Perf's defaults).
	CheckpointDir       string
	EnableCheckpointing bool

	// ArtifactDir is the base artifact directory (GenAI-Perf's
	// --artifact-dir), not the per-run subdirectory.
	ArtifactDir string
	// ProfileExportFile is the bare name of the raw export; the GenAI-Perf
	// files take its stem ("profile_export" → "profile_export_genai_perf").
	ProfileExportFile string
	// Tokenizer is the tokenizer the run loaded, "" for none. GenAI-Perf's
	// input_config then names the first model (its default tokenizer),
	// while llmbench's block says "none".
	Tokenizer string
	// TokenizerRevision ("" echoes "main") and TokenizerTrustRemoteCode
	// are GenAI-Perf's tokenizer flags, echoed in input_config.
	TokenizerRevision        string
	TokenizerTrustRemoteCode bool
	// Version is written as profile_export.json's "version", where
	// perf_analyzer writes its own version.
	Version string

	// Partial marks a run interrupted before its stop condition: its
	// numbers describe only what was measured. It is written in
	// llmbench's own block, never in GenAI-Perf's keys.
	Partial bool
	// TokenCounting is llmbench's token counting mode ("tokenizer",
	// "usage" or "chunks"), named in every report because ISL/OSL and
	// every per-token metric depend on it.
	TokenCounting string
	// RequestDistribution is the open-loop arrival process ("constant",
	// "poisson", "gamma"); GenAI-Perf only ever used constant.
	RequestDistribution string
}

// Stimulus is the load applied at one point. GenAI-Perf and perf_analyzer
// treat a non-zero Concurrency as a closed loop and otherwise use the
// request rate, so the same rule is applied here.
type Stimulus struct {
	Concurrency int
	RequestRate float64
	// FixedSchedule replays each input's own timestamp (GenAI-Perf's
	// --fixed-schedule); perf_analyzer records it as request rate 0.0.
	FixedSchedule bool
	// SessionConcurrency keeps that many conversations active (GenAI-Perf's
	// --session-concurrency); perf_analyzer records it as request rate 0.0.
	SessionConcurrency int
	// SessionRate starts that many conversations per second (rate() over
	// a conversations dataset); its requests come at the sessions' pace.
	SessionRate float64
	// Users paces that many users at UserRate requests/s in total
	// (llmbench's users()); recorded as request rate 0.0 too.
	Users    int
	UserRate float64
	// Staged is a stages() load: Concurrency or RequestRate is its peak,
	// which the console names so (the stages hold the load below it).
	Staged bool
}

// Mode returns perf_analyzer's experiment mode, "concurrency" or
// "request_rate".
func (s Stimulus) Mode() string {
	if s.FixedSchedule || s.SessionConcurrency > 0 || s.SessionRate > 0 || s.Users > 0 || (s.Concurrency == 0 && s.RequestRate > 0) {
		return "request_rate"
	}
	return "concurrency"
}

// concurrency returns the closed-loop level, 1 when nothing was set, as
// GenAI-Perf names a run without a stimulus "concurrency1".
func (s Stimulus) concurrency() int {
	if s.Concurrency == 0 {
		return 1
	}
	return s.Concurrency
}

// String renders the stimulus as GenAI-Perf's directory names do:
// "concurrency16" or "request_rate10.0" (the rate as Python prints a float).
func (s Stimulus) String() string {
	switch {
	case s.FixedSchedule:
		return "fixed_schedule"
	case s.SessionConcurrency > 0:
		return "session_concurrency" + strconv.Itoa(s.SessionConcurrency)
	case s.Users > 0:
		return "users" + strconv.Itoa(s.Users)
	case s.SessionRate > 0:
		return "session_rate" + pyRepr(s.SessionRate)
	}
	if s.Mode() == "request_rate" {
		return "request_rate" + pyRepr(s.RequestRate)
	}
	return "concurrency" + strconv.Itoa(s.concurrency())
}

// Sweep is an analyze sweep as GenAI-Perf's config holds it: a parameter
// swept over a range (Min to Max, powers of two between them) or over a
// list of values (an explicit --sweep-list, or a range with a step).
type Sweep struct {
	// Type is GenAI-Perf's name of the swept parameter: concurrency,
	// request_rate, input_sequence_length (or llmbench's
	// output_sequence_length).
	Type     string
	Min, Max int
	// List, when not nil, holds the values and Min/Max are unused.
	List []float64
}

// Goodput is one SLO as given on the command line: a GenAI-Perf metric name
// and a value in ms for times or per second for throughputs.
type Goodput struct {
	Name  string
	Value float64
}

// Field is one named raw-JSON value, kept in the order it was given because
// Python dicts keep insertion order and the artifacts show it.
type Field struct {
	Name  string
	Value json.RawMessage
}

// TokenDist is a mean and standard deviation in tokens.
type TokenDist struct {
	Mean, Stddev int
}

// OutputTokens is the requested output length; Deterministic means
// min_tokens was pinned to max_tokens.
type OutputTokens struct {
	Mean, Stddev  int
	Deterministic bool
}

// DefaultRun returns the Run a bare `genai-perf profile -m MODEL
// --endpoint-type chat` describes, so callers override only what they set
// and input_config shows GenAI-Perf's defaults for the rest.
func DefaultRun(models ...string) Run {
	return Run{
		Subcommand:          "profile",
		Models:              models,
		EndpointType:        "chat",
		URL:                 "localhost:8001",
		ServiceKind:         "openai",
		ServerMetricsURLs:   []string{"http://localhost:9400/metrics"},
		Stimulus:            Stimulus{Concurrency: 1},
		NumDatasetEntries:   100,
		SyntheticTokens:     TokenDist{Mean: 550},
		PrefixPromptLength:  100,
		ArtifactDir:         "artifacts",
		ProfileExportFile:   "profile_export.json",
		TokenCounting:       "tokenizer",
		RequestDistribution: "constant",
	}
}

// endpointPath returns the URL path requests went to.
func (r *Run) endpointPath() string {
	if r.Endpoint != "" || r.isTriton() { // gRPC has no path
		return r.Endpoint
	}
	switch r.EndpointType {
	case "completions":
		return "v1/completions"
	case "embeddings":
		return "v1/embeddings"
	case "rankings":
		return "v1/ranking"
	case "image_retrieval":
		return "v1/infer"
	case "responses", "messages": // llmbench's own types, beyond GenAI-Perf's
		return "v1/" + r.EndpointType
	case "generate", "huggingface_generate", "tgi": // the routes requests went to
		path := "generate"
		if r.EndpointType == "generate" && len(r.Models) > 0 {
			path = "v2/models/" + url.PathEscape(r.Models[0]) + "/generate"
		}
		if r.Streaming {
			path += "_stream"
		}
		return path
	}
	return "v1/chat/completions"
}

// serviceKind returns the service kind, "openai" unless set.
func (r *Run) serviceKind() string {
	if r.ServiceKind == "" {
		return "openai"
	}
	return r.ServiceKind
}

// tokenizerName returns the tokenizer, defaulting to the first model as
// GenAI-Perf does.
func (r *Run) tokenizerName() string {
	if r.Tokenizer == "" && len(r.Models) > 0 {
		return r.Models[0]
	}
	return r.Tokenizer
}

// isLLM reports whether the endpoint produces text, and so has the token
// metrics; embeddings only have latency, throughput and count.
func (r *Run) isLLM() bool {
	return r.EndpointType != "embeddings" && r.EndpointType != "rankings" && !r.isImageRetrieval()
}

// isImageRetrieval reports GenAI-Perf's image_retrieval, which reports
// image_throughput and image_latency beside the request latency.
func (r *Run) isImageRetrieval() bool { return r.EndpointType == "image_retrieval" }

// hasGoodput reports whether goodput was asked for, which is what makes
// GenAI-Perf print the Request Goodput row.
func (r *Run) hasGoodput() bool { return len(r.Goodput) > 0 }

// SessionConfig is input_config's "sessions": GenAI-Perf's --num-sessions,
// --session-turns-mean/-stddev, --session-turn-delay-mean/-stddev (ms) and
// --session-delay-ratio.
type SessionConfig struct {
	Num                         int
	TurnsMean, TurnsStddev      int
	TurnDelayMean, TurnDelayStd int
	DelayRatio                  float64
}

package gpflags

import (
	"math"
	"strings"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// validate refuses flags no run can use, each error naming its flag
// (exit 2), and applies --service-kind triton's defaults.
func (c *Profile) validate() error {
	if err := c.Telemetry.Check(); err != nil {
		return err
	}
	if _, err := c.steadyRule(); err != nil {
		return err
	}
	for i, m := range c.Model {
		if strings.TrimSpace(m) == "" {
			return failure.Inputf("--model: got an empty name at position %d of %q, want the model names the server serves", i+1, c.Model)
		}
	}
	if err := checkServiceKind(c.ServiceKind); err != nil {
		return err
	}
	c.tritonDefaults()
	switch {
	case c.Telemetry.ResetPrefixCache && c.Triton():
		return failure.Inputf("--reset-prefix-cache: the reset is an HTTP POST to the server's root, and --service-kind triton speaks gRPC; reset the cache with an HTTP endpoint of the same server")
	case c.Backend != "" && c.Backend != "tensorrtllm" && c.Backend != "vllm":
		return failure.Inputf("--backend: got %q, want tensorrtllm or vllm", c.Backend)
	case strings.TrimSpace(c.TokenizerRevision) == "":
		return failure.Inputf("--tokenizer-revision: got an empty string, want a branch, tag or commit id (default main)")
	case c.Concurrency < 0:
		return failure.Inputf("--concurrency: got %d, want >= 1", c.Concurrency)
	case c.RequestRate < 0:
		return failure.Inputf("--request-rate: got %g, want > 0", c.RequestRate)
	case c.Concurrency > 0 && c.RequestRate > 0:
		return failure.Inputf("--concurrency and --request-rate are mutually exclusive")
	case c.RequestCount.N > 0 && c.MeasurementInterval > 0:
		return failure.Inputf("--request-count and --measurement-interval are mutually exclusive")
	case c.RequestCount.N < 0 || c.MeasurementInterval < 0 || c.WarmupRequestCount < 0:
		return failure.Inputf("--request-count, --measurement-interval and --warmup-request-count must not be negative")
	case c.SyntheticInputTokensMean < 0 || c.SyntheticInputTokensStddev < 0 || c.OutputTokensMean < 0 || c.OutputTokensStddev < 0:
		return failure.Inputf("token length means and standard deviations must not be negative")
	case c.NumDatasetEntries <= 0:
		return failure.Inputf("--num-dataset-entries: got %d, want > 0", c.NumDatasetEntries)
	case (c.OutputTokensStddev > 0 || c.OutputTokensMeanDeterministic) && c.OutputTokensMean == 0:
		return failure.Inputf("--output-tokens-stddev and --output-tokens-mean-deterministic need --output-tokens-mean")
	case c.FixedSchedule && !strings.HasPrefix(c.InputFile, "payload:"):
		return failure.Inputf("--fixed-schedule needs --input-file payload:FILE with timestamps")
	case c.FixedSchedule && (c.Concurrency > 0 || c.RequestRate > 0):
		return failure.Inputf("--fixed-schedule, --concurrency and --request-rate are mutually exclusive")
	case c.MaxConcurrency < 0:
		return failure.Inputf("--max-concurrency: got %d, want >= 0", c.MaxConcurrency)
	case !(c.ConcurrencyRampDuration >= 0 && c.RequestRateRampDuration >= 0) || math.IsInf(c.ConcurrencyRampDuration+c.RequestRateRampDuration, 0):
		return failure.Inputf("--concurrency-ramp-duration and --request-rate-ramp-duration: want seconds >= 0")
	case c.RequestRateRampDuration > 0 && c.RequestRate == 0:
		return failure.Inputf("--request-rate-ramp-duration needs --request-rate (use --concurrency-ramp-duration for a closed loop)")
	case c.ConcurrencyRampDuration > 0 && c.RequestRate > 0:
		return failure.Inputf("--concurrency-ramp-duration ramps a closed loop; with --request-rate use --request-rate-ramp-duration")
	case (c.ConcurrencyRampDuration > 0 || c.RequestRateRampDuration > 0) && c.FixedSchedule:
		return failure.Inputf("--fixed-schedule keeps the payload's own timing: no ramp")
	case strings.ContainsAny(c.ProfileExportFile, `/\`) || c.ProfileExportFile == "" || strings.Trim(c.ProfileExportFile, ".") == "":
		return failure.Inputf("--profile-export-file: got %q, want a bare file name (use --artifact-dir for the folder)", c.ProfileExportFile)
	}
	if c.BatchSizeText < 1 || (c.BatchSizeText > 1 && c.EndpointType != string(transport.Rankings)) {
		return failure.Inputf("--batch-size-text: got %d, want 1, or more with --endpoint-type rankings (passages per query)", c.BatchSizeText)
	}
	if err := c.validateSessions(); err != nil {
		return err
	}
	if err := c.validateMedia(); err != nil {
		return err
	}
	return c.validateValues()
}

// validateValues refuses values a flag's type admits but no run can use:
// not-a-number rates, timeouts that would disable themselves, negative
// counts, a schedule that would take longer than a day, a URL llmbench
// cannot send to.
func (c *Profile) validateValues() error {
	switch {
	case math.IsNaN(c.RequestRate) || math.IsInf(c.RequestRate, 0):
		return failure.Inputf("--request-rate: got %g, want a finite number of requests per second", c.RequestRate)
	case math.IsNaN(c.Burstiness) || math.IsInf(c.Burstiness, 0) || c.Burstiness <= 0:
		return failure.Inputf("--burstiness: got %g, want a finite number > 0", c.Burstiness)
	case c.RequestTimeout <= 0:
		return failure.Inputf("--request-timeout: got %s, want a positive duration (it bounds every request)", c.RequestTimeout)
	case c.StreamIdleTimeout < 0:
		return failure.Inputf("--stream-idle-timeout: got %s, want a duration >= 0 (0: off)", c.StreamIdleTimeout)
	case c.NumPrefixPrompts < 0 || c.PrefixPromptLength < 0:
		return failure.Inputf("--num-prefix-prompts and --prefix-prompt-length must not be negative")
	}
	if _, _, err := c.sizeLimits(); err != nil {
		return err
	}
	if p := c.Point(); p.Stop.Requests > 0 {
		if err := runtime.CheckSchedule(p.Load, p.Stop.Requests+p.Warmup, "requests"); err != nil { // the rule rate() in a scenario follows
			return failure.Inputf("--request-rate %g: %w (--request-count)", c.RequestRate, err)
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
func (c *Profile) checkURL(u string) error {
	if c.Triton() && !strings.HasPrefix(u, "sim://") {
		if _, err := transport.ParseTritonURL(u); err != nil {
			return failure.Inputf("--url: %w", err)
		}
		return nil
	}
	return CheckURL(u)
}

// sizeLimits parses --max-response-size and --max-sse-line-size.
func (c *Profile) sizeLimits() (response, line int64, err error) {
	if response, err = transport.ParseSize(c.MaxResponseSize); err != nil {
		return 0, 0, failure.Inputf("--max-response-size: %w", err)
	}
	if line, err = transport.ParseSize(c.MaxSSELineSize); err != nil {
		return 0, 0, failure.Inputf("--max-sse-line-size: %w", err)
	}
	return response, line, nil
}

// CheckURL refuses a server address no request could be sent to: empty,
// or with a scheme other than http, https or sim.
func CheckURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return failure.Inputf("--url: got an empty address, want host:port, http(s)://host:port or sim://")
	}
	// Redacted as the URL it is taken for: "user:pw@host:port" is read
	// with the scheme "user" on its own, and would keep its password.
	shown := plan.RedactURL(runtime.BaseURL(raw))
	if scheme, _, ok := strings.Cut(raw, "://"); ok && scheme != "http" && scheme != "https" && scheme != "sim" {
		if !isScheme(scheme) { // "user:pw@host://…": what precedes :// may be a credential
			return failure.Inputf("--url: the text before :// is not a scheme, want host:port, http(s)://host:port or sim://")
		}
		return failure.Inputf("--url %s: scheme %q is not served, want http, https or sim", shown, scheme)
	}
	if !strings.HasPrefix(raw, "sim://") {
		if err := transport.CheckURL(runtime.BaseURL(raw)); err != nil {
			return failure.Inputf("--url %s: %v", shown, err)
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
		return failure.Inputf("--service-kind %s: %s", kind, why)
	}
	return failure.Inputf("--service-kind: got %q, want openai or triton (GenAI-Perf's tensorrtllm_engine and dynamic_grpc are not built yet)", kind)
}

// Triton reports a run against Triton's gRPC API: --service-kind triton,
// or GenAI-Perf's --endpoint-type kserve, which names the same API.
func (c *Profile) Triton() bool {
	return c.ServiceKind == "triton" || c.EndpointType == "kserve"
}

// tritonDefaults applies GenAI-Perf's defaults of --service-kind triton:
// endpoint type kserve (the flag's default chat means unset here), the
// tensorrtllm backend, and Triton's gRPC port 8001 for the default -u.
func (c *Profile) tritonDefaults() {
	if !c.Triton() {
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

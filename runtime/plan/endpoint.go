package plan

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/llmbench/llmbench/transport"
)

// API is an endpoint's wire API (transport's), named here so that a
// plan is built and read without importing transport.
type API = transport.API

// Endpoint is where requests go and how they are shaped.
type Endpoint struct {
	// URL is "http(s)://host:port[/prefix]", GenAI-Perf's bare
	// "host:port", or "sim://" (optionally "sim://?max_batch=8&itl=5ms")
	// for the built-in simulator started in-process.
	URL string `json:"url"`
	// URLs, when it holds two or more base URLs, are replicas of one
	// model the requests are spread over by URLSelection (each request's
	// Record.Replica is its index here); URL is then URLs[0]. Each
	// "sim://..." entry starts a simulator of its own.
	URLs []string `json:"urls,omitempty"`
	// URLSelection is RoundRobin ("" too) or LeastInFlight.
	URLSelection string `json:"url_selection,omitempty"`
	// SourceAddrs, when set, are the local addresses outgoing connections
	// are bound to in turn (transport.Config.SourceAddrs).
	SourceAddrs []netip.Addr `json:"source_addresses,omitempty"`
	// Path overrides the API's default path.
	Path   string        `json:"path,omitempty"`
	API    transport.API `json:"api"`
	Stream bool          `json:"stream"`
	// Backend is the Triton backend whose inputs an api="triton" request
	// carries: transport.TensorRTLLM ("" too) or transport.VLLM.
	Backend string `json:"backend,omitempty"`
	// Model is the model requests name. With Models set it is Models[0],
	// the name GenAI-Perf gives the artifact folder and the tokenizer
	// default.
	Model string `json:"model"`
	// Models, when it holds two or more names, spreads the requests over
	// them (GenAI-Perf's -m a b), each dataset entry naming the one
	// ModelSelection picks; nil means every request names Model.
	Models []string `json:"models,omitempty"`
	// ModelSelection is RoundRobin ("" too) or RandomModel; ModelSeed
	// makes the random choice reproducible.
	ModelSelection string             `json:"model_selection,omitempty"`
	ModelSeed      uint64             `json:"-"`
	Headers        []transport.Header `json:"-"`
	// SessionHeader names the header that carries each conversation
	// turn's session id ("" sends none).
	SessionHeader string            `json:"session_header,omitempty"`
	Extra         []transport.Field `json:"-"`
	Timeout       time.Duration     `json:"timeout,omitempty"`
	// IdleTimeout fails a request the server is silent on for this long:
	// waiting for the headers or between two reads of the body (0: off).
	IdleTimeout time.Duration `json:"idle_timeout,omitempty"`
	// MaxResponseSize and MaxSSELineSize bound one response body and one
	// SSE line in bytes (0: transport's defaults, 256 MiB and 16 MiB).
	MaxResponseSize int64 `json:"max_response_size,omitempty"`
	MaxSSELineSize  int64 `json:"max_sse_line_size,omitempty"`
	Insecure        bool  `json:"insecure,omitempty"`
	// Tokenizer is a tokenizer.json file, folder or Hugging Face model id
	// ("" for none); TokenCount is auto, tokenizer, usage or chunks.
	Tokenizer  string `json:"tokenizer,omitempty"`
	TokenCount string `json:"token_count,omitempty"`
	// TokenizerRevision is the Hugging Face Hub revision of a Tokenizer
	// given as a model id ("" is main).
	TokenizerRevision string `json:"tokenizer_revision,omitempty"`
	// ResetPrefixCache empties the server's prefix cache before every run
	// of every point (endpoint(reset_prefix_cache = True),
	// --reset-prefix-cache), so no run finds the prompts of an earlier one
	// cached (transport/telemetry.ResetPrefixCache).
	ResetPrefixCache bool `json:"reset_prefix_cache,omitempty"`
}

// The model selection strategies of an endpoint serving several models,
// GenAI-Perf's --model-selection-strategy values.
const (
	RoundRobin  = "round_robin"
	RandomModel = "random"
)

// LeastInFlight is the replica selection that sends each request to the
// replica with the fewest requests in flight (ties to the first): a slow
// replica then takes fewer, as a load balancer's least-connections does.
const LeastInFlight = "least_in_flight"

// ReplicaURLs returns every base URL requests go to, in the order given.
func (e Endpoint) ReplicaURLs() []string {
	if len(e.URLs) > 0 {
		return e.URLs
	}
	return []string{e.URL}
}

// ModelNames returns every model a request may name, in the order given.
func (e Endpoint) ModelNames() []string {
	if len(e.Models) > 0 {
		return e.Models
	}
	return []string{e.Model}
}

// IsTriton reports an endpoint speaking Triton's KServe v2 gRPC API, whose
// artifacts (inputs.json, the raw export) take Triton's shapes.
func (e Endpoint) IsTriton() bool { return e.API == transport.Triton }

// IsSim reports whether the endpoint targets the in-process simulator.
func (e Endpoint) IsSim() bool { return strings.HasPrefix(e.URL, "sim://") }

// CheckHeader refuses a request header the transport must not send: a
// name that is not an HTTP token (RFC 9110), or a value holding a control
// character other than tab. The transport writes headers as given, so a
// line break in either would add headers, or a body, to every request.
// The error never shows the value, which is often a credential.
func CheckHeader(name, value string) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
	}) {
		return errors.New("want a header name of letters, digits and !#$%&'*+-.^_`|~")
	}
	if strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return fmt.Errorf("header %s: its value holds a line break or another control character", name)
	}
	return nil
}

package runtime

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"

	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// Endpoint is where requests go and how they are shaped.
type Endpoint struct {
	// URL is "http(s)://host:port[/prefix]", GenAI-Perf's bare
	// "host:port", or "sim://" (optionally "sim://?max_batch=8&itl=5ms")
	// for the built-in simulator started in-process.
	URL string
	// URLs, when it holds two or more base URLs, are replicas of one
	// model the requests are spread over by URLSelection (each request's
	// Record.Replica is its index here); URL is then URLs[0]. Each
	// "sim://..." entry starts a simulator of its own.
	URLs []string
	// URLSelection is RoundRobin ("" too) or LeastInFlight.
	URLSelection string
	// SourceAddrs, when set, are the local addresses outgoing connections
	// are bound to in turn (transport.Config.SourceAddrs).
	SourceAddrs []netip.Addr
	// Path overrides the API's default path.
	Path   string
	API    transport.API
	Stream bool
	// Backend is the Triton backend whose inputs an api="triton" request
	// carries: transport.TensorRTLLM ("" too) or transport.VLLM.
	Backend string
	// Model is the model requests name. With Models set it is Models[0],
	// the name GenAI-Perf gives the artifact folder and the tokenizer
	// default.
	Model string
	// Models, when it holds two or more names, spreads the requests over
	// them (GenAI-Perf's -m a b), each dataset entry naming the one
	// ModelSelection picks; nil means every request names Model.
	Models []string
	// ModelSelection is RoundRobin ("" too) or RandomModel; ModelSeed
	// makes the random choice reproducible.
	ModelSelection string
	ModelSeed      uint64
	Headers        []transport.Header
	// SessionHeader names the header that carries each conversation
	// turn's session id ("" sends none).
	SessionHeader string
	Extra         []transport.Field
	Timeout       time.Duration
	// IdleTimeout fails a request the server is silent on for this long:
	// waiting for the headers or between two reads of the body (0: off).
	IdleTimeout time.Duration
	// MaxResponseSize and MaxSSELineSize bound one response body and one
	// SSE line in bytes (0: transport's defaults, 256 MiB and 16 MiB).
	MaxResponseSize int64
	MaxSSELineSize  int64
	Insecure        bool
	// Tokenizer is a tokenizer.json file, folder or Hugging Face model id
	// ("" for none); TokenCount is auto, tokenizer, usage or chunks.
	Tokenizer  string
	TokenCount string
	// TokenizerRevision is the Hugging Face Hub revision of a Tokenizer
	// given as a model id ("" is main).
	TokenizerRevision string
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

// modelStream separates the model choice's random stream from the
// dataset's and the arrivals', which share the same user seed.
const modelStream = 0x6d6f64656c // "model"

// modelPicker returns the model of each dataset entry, called with the
// entries in order. As GenAI-Perf assigns a model to each inputs.json
// record (base_converter.py::_select_model_name), round robin gives entry
// i models[i % n] and random draws uniformly, seeded by ModelSeed. Since
// requests cycle through the entries, request i names models[i % n]
// whenever the number of entries is a multiple of n.
func (e Endpoint) modelPicker() func(i int) string {
	models := e.ModelNames()
	if e.ModelSelection != RandomModel || len(models) == 1 {
		return func(i int) string { return models[i%len(models)] }
	}
	rng := rand.New(rand.NewPCG(e.ModelSeed, modelStream))
	return func(int) string { return models[rng.IntN(len(models))] }
}

// ErrUnreachable marks a target that did not accept a connection.
var ErrUnreachable = failure.New(failure.Run, errors.New("target unreachable"))

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

// BaseURL normalises a user-given address: a bare host:port gets http://.
func BaseURL(raw string) string {
	if strings.Contains(raw, "://") {
		return raw
	}
	return "http://" + raw
}

// preflight dials the target once so an unreachable server is one clear
// error instead of thousands of failed requests.
func preflight(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return failure.Inputf("url: %s", RedactText(err.Error()))
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	conn, err := net.DialTimeout("tcp", host, 3*time.Second)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, RedactURL(base), err)
	}
	return conn.Close()
}

// SimConfig reads simulator settings from a sim:// URL's query, e.g.
// "sim://?max_batch=8&itl=5ms&error_rate_500=0.01". Nothing of the URL is
// ignored: a host or path ("sim://max_batch=8", the "?" forgotten) or a
// query pair that does not parse ("max_batch=8;itl=5ms") is refused, not
// dropped, so the simulator never runs with settings other than written.
// Parameters are checked in name order, so the error is always the same.
func SimConfig(raw string) (sim.Config, error) {
	cfg := sim.DefaultConfig()
	shown := RedactURL(raw) // a message never shows a credential, even on sim://
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL it quotes
		}
		return cfg, fmt.Errorf("invalid simulator url %q: %v", shown, err)
	}
	if u.Scheme != "sim" || u.Opaque != "" || u.User != nil || u.Host != "" || u.Path != "" || u.Fragment != "" {
		return cfg, fmt.Errorf("simulator url %q: want sim:// and settings after ?, as in sim://?max_batch=8&itl=5ms", shown)
	}
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return cfg, fmt.Errorf("simulator url %q: %v (want name=value pairs joined by &)", shown, err)
	}
	for _, key := range slices.Sorted(maps.Keys(query)) {
		set, ok := simParams[key]
		if !ok {
			return cfg, fmt.Errorf("simulator url %q: unknown parameter %q, want one of %s", shown, key, simParamNames())
		}
		vals := query[key]
		if err := set(&cfg, vals[len(vals)-1]); err != nil {
			return cfg, fmt.Errorf("simulator url %q: parameter %s: %v", shown, key, err)
		}
	}
	return cfg, cfg.Validate()
}

func durationParam(f func(*sim.Config) *time.Duration) func(*sim.Config, string) error {
	return func(c *sim.Config, v string) error {
		d, err := time.ParseDuration(v)
		*f(c) = d
		return err
	}
}

func floatParam(f func(*sim.Config) *float64) func(*sim.Config, string) error {
	return func(c *sim.Config, v string) (err error) {
		*f(c), err = strconv.ParseFloat(v, 64)
		return err
	}
}

func intParam(f func(*sim.Config) *int) func(*sim.Config, string) error {
	return func(c *sim.Config, v string) (err error) {
		*f(c), err = strconv.Atoi(v)
		return err
	}
}

var simParams = map[string]func(*sim.Config, string) error{
	"ttft":              durationParam(func(c *sim.Config) *time.Duration { return &c.TTFT }),
	"prefill_per_token": durationParam(func(c *sim.Config) *time.Duration { return &c.PrefillPerToken }),
	"itl":               durationParam(func(c *sim.Config) *time.Duration { return &c.ITL }),
	"itl_per_seq":       durationParam(func(c *sim.Config) *time.Duration { return &c.ITLPerSeq }),
	"stall":             durationParam(func(c *sim.Config) *time.Duration { return &c.Stall }),
	"max_batch":         intParam(func(c *sim.Config) *int { return &c.MaxBatch }),
	"context_tokens":    intParam(func(c *sim.Config) *int { return &c.ContextTokens }),
	"merge_rate":        floatParam(func(c *sim.Config) *float64 { return &c.MergeRate }),
	"output_tokens":     intParam(func(c *sim.Config) *int { return &c.DefaultOutputTokens }),
	"reasoning_tokens":  intParam(func(c *sim.Config) *int { return &c.ReasoningTokens }),
	"jitter":            floatParam(func(c *sim.Config) *float64 { return &c.Jitter }),
	"error_rate_429":    floatParam(func(c *sim.Config) *float64 { return &c.ErrorRate429 }),
	"error_rate_500":    floatParam(func(c *sim.Config) *float64 { return &c.ErrorRate500 }),
	"reset_rate":        floatParam(func(c *sim.Config) *float64 { return &c.ResetRate }),
	"malformed_rate":    floatParam(func(c *sim.Config) *float64 { return &c.MalformedRate }),
	"stall_rate":        floatParam(func(c *sim.Config) *float64 { return &c.StallRate }),
	"seed": func(c *sim.Config, v string) (err error) {
		c.Seed, err = strconv.ParseInt(v, 10, 64)
		return err
	},
	"flavor": func(c *sim.Config, v string) error {
		c.Flavor = sim.Flavor(v)
		return nil // Validate names the flavors
	},
	"strict_model": func(c *sim.Config, v string) (err error) {
		c.StrictModel, err = strconv.ParseBool(v)
		return err
	},
	"reasoning": func(c *sim.Config, v string) (err error) {
		c.Reasoning, err = strconv.ParseBool(v)
		return err
	},

	// The prefix cache: how many blocks of prefix_block_tokens stay resident.
	"prefix_cache_blocks": intParam(func(c *sim.Config) *int { return &c.PrefixCacheBlocks }),
	"prefix_block_tokens": intParam(func(c *sim.Config) *int { return &c.PrefixBlockTokens }),
}

func simParamNames() string {
	names := make([]string, 0, len(simParams))
	for k := range simParams {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// conversation prepares sessions for the endpoint's API; a session's model
// is chosen once, for all its turns, as Models says.
func (e Endpoint) conversation(sessions []dataset.Session, seed uint64) *engine.Conversation {
	return engine.NewConversation(transport.BodySpec{API: e.API, Stream: e.Stream, Extra: e.Extra}, e.modelPicker(), sessions, seed)
}

package runtime

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// modelStream separates the model choice's random stream from the
// dataset's and the arrivals', which share the same user seed.
const modelStream = 0x6d6f64656c // "model"

// modelPicker returns the model of each dataset entry, called with the
// entries in order. As GenAI-Perf assigns a model to each inputs.json
// record (base_converter.py::_select_model_name), round robin gives entry
// i models[i % n] and random draws uniformly, seeded by ModelSeed. Since
// requests cycle through the entries, request i names models[i % n]
// whenever the number of entries is a multiple of n.
func modelPicker(e plan.Endpoint) func(i int) string {
	models := e.ModelNames()
	if e.ModelSelection != plan.RandomModel || len(models) == 1 {
		return func(i int) string { return models[i%len(models)] }
	}
	rng := rand.New(rand.NewPCG(e.ModelSeed, modelStream))
	return func(int) string { return models[rng.IntN(len(models))] }
}

// ErrUnreachable marks a target that did not accept a connection.
var ErrUnreachable = failure.New(failure.Run, errors.New("target unreachable"))

// BaseURL normalises a user-given address: a bare host:port gets http://.
func BaseURL(raw string) string {
	if strings.Contains(raw, "://") {
		return raw
	}
	return "http://" + raw
}

// Preflight checks that base (an http(s) base URL) accepts a connection,
// naming it when it does not (ErrUnreachable): a command that talks to the
// server through something of its own (calibrate's slowdown proxy) checks
// the server itself first, as a run does.
func Preflight(base string) error { return preflight(base) }

// preflight dials the target once so an unreachable server is one clear
// error instead of thousands of failed requests.
func preflight(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return failure.Inputf("url: %s", plan.RedactText(err.Error()))
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
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, plan.RedactURL(base), err)
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
	shown := plan.RedactURL(raw) // a message never shows a credential, even on sim://
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
	"drift": func(c *sim.Config, v string) (err error) {
		c.Drift, c.DriftWave, err = sim.ParseDrift(v)
		return err
	},
	"error_rate_429": floatParam(func(c *sim.Config) *float64 { return &c.ErrorRate429 }),
	"error_rate_500": floatParam(func(c *sim.Config) *float64 { return &c.ErrorRate500 }),
	"reset_rate":     floatParam(func(c *sim.Config) *float64 { return &c.ResetRate }),
	"malformed_rate": floatParam(func(c *sim.Config) *float64 { return &c.MalformedRate }),
	"stall_rate":     floatParam(func(c *sim.Config) *float64 { return &c.StallRate }),
	"seed": func(c *sim.Config, v string) (err error) {
		c.Seed, err = strconv.ParseInt(v, 10, 64)
		return err
	},
	"drift_seed": func(c *sim.Config, v string) (err error) {
		c.DriftSeed, err = strconv.ParseInt(v, 10, 64)
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
	// prompt_tokens_details=false hides the cache's hits from the usage,
	// as a default vLLM does: they are then in /metrics only.
	"prompt_tokens_details": func(c *sim.Config, v string) error {
		show, err := strconv.ParseBool(v)
		c.HidePromptTokensDetails = !show
		return err
	},
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
func conversation(e plan.Endpoint, sessions []dataset.Session, seed uint64) *engine.Conversation {
	return engine.NewConversation(transport.BodySpec{API: e.API, Stream: e.Stream, Extra: e.Extra}, modelPicker(e), sessions, seed)
}

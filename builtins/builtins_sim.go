package builtins

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport/sim"
)

// simValue is what sim(...) returns: a target for the built-in simulator,
// carried as the sim:// URL whose query runtime.SimConfig reads back, so
// the plan stays a plain string and the runtime starts the simulator as it
// does for `-u sim://...`. It is accepted by endpoint(url=...) and
// directly by experiment(endpoint=...), where it stands for
// endpoint(url=sim(...), model="llmbench-sim").
type simValue struct {
	object
	url string
}

// simParam maps one sim() keyword onto a sim:// query parameter.
type simParam struct {
	name, query string
	kind        simKind
}

type simKind int

const (
	simDuration simKind = iota
	simInt
	simFloat
	simBool
	simString
	// simDrift is a number (each start's σ) or a "sine(10%, 60s)" wave.
	simDrift
)

// simParams are sim()'s keywords in the order the simulator's Config
// documents them. error_rate is the HTTP 500 fraction, the fault a user
// means by "errors"; the other faults have their own names.
var simParams = []simParam{
	{"ttft", "ttft", simDuration},
	{"itl", "itl", simDuration},
	{"prefill_per_token", "prefill_per_token", simDuration},
	{"max_batch", "max_batch", simInt},
	{"jitter", "jitter", simFloat},
	{"drift", "drift", simDrift},
	{"drift_seed", "drift_seed", simInt},
	{"error_rate", "error_rate_500", simFloat},
	{"itl_per_seq", "itl_per_seq", simDuration},
	{"error_rate_429", "error_rate_429", simFloat},
	{"reset_rate", "reset_rate", simFloat},
	{"malformed_rate", "malformed_rate", simFloat},
	{"stall_rate", "stall_rate", simFloat},
	{"stall", "stall", simDuration},
	{"output_tokens", "output_tokens", simInt},
	{"reasoning", "reasoning", simBool},
	{"reasoning_tokens", "reasoning_tokens", simInt},
	{"seed", "seed", simInt},
	{"prefix_cache_blocks", "prefix_cache_blocks", simInt},
	{"prefix_block_tokens", "prefix_block_tokens", simInt},
	{"prompt_tokens_details", "prompt_tokens_details", simBool},
	{"flavor", "flavor", simString},
	{"context_tokens", "context_tokens", simInt},
	{"merge_rate", "merge_rate", simFloat},
	{"strict_model", "strict_model", simBool},
}

// sim(ttft=, itl=, prefill_per_token=, max_batch=, jitter=, error_rate=,
// ...) describes the built-in simulator (SPEC §9); unset keywords keep
// the simulator's defaults (sim.DefaultConfig). Its keywords are `llmbench
// sim`'s flags, flavor="ollama", context_tokens=, merge_rate= and
// strict_model= included.
func simBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	vals := make([]starlark.Value, len(simParams))
	pairs := make([]any, 0, 2*len(simParams))
	for i, p := range simParams {
		pairs = append(pairs, p.name+"??", &vals[i])
	}
	if err := unpack(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	query := url.Values{}
	var given []string
	for i, p := range simParams {
		if vals[i] == nil {
			continue
		}
		text, err := simQueryValue(p.kind, vals[i])
		if err != nil {
			return nil, paramError(b.Name(), p.name, err)
		}
		query.Set(p.query, text)
		given = append(given, p.name+"="+simShow(p.kind, vals[i], text))
	}
	u := "sim://"
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	if _, err := runtime.SimConfig(u); err != nil {
		// "sim: max_batch must be >= 1, got 0", in the keywords' names.
		return nil, errors.New(strings.ReplaceAll(err.Error(), "error_rate_500", "error_rate"))
	}
	attrs := starlark.StringDict{"url": str(u)}
	desc := "sim(" + strings.Join(given, ", ") + ")"
	return &simValue{object: newObject("sim", desc, attrs, true), url: u}, nil
}

// simQueryValue converts one keyword's value to its query text.
func simQueryValue(kind simKind, v starlark.Value) (string, error) {
	switch kind {
	case simDuration:
		var d duration
		err := d.Unpack(v)
		// Go writes sub-millisecond durations with "µs", which a URL
		// escapes to "%C2%B5s"; "us" reads the same and stays readable.
		return strings.Replace(time.Duration(d).String(), "µs", "us", 1), err
	case simInt:
		var n int
		err := starlark.UnpackArg(v, &n)
		return strconv.Itoa(n), err
	case simFloat:
		var n number
		err := n.Unpack(v)
		return num(float64(n)), err
	case simDrift:
		if text, ok := starlark.AsString(v); ok {
			return text, nil // SimConfig reads it and names what is wrong
		}
		var n number
		err := n.Unpack(v)
		return num(float64(n)), err
	case simString:
		var text string
		err := starlark.UnpackArg(v, &text)
		return text, err
	default:
		var on bool
		err := starlark.UnpackArg(v, &on)
		return strconv.FormatBool(on), err
	}
}

// simShow writes a keyword back for the description, durations as text.
func simShow(kind simKind, v starlark.Value, text string) string {
	if kind == simDuration {
		return quote(durationText(mustDuration(text)))
	}
	return v.String()
}

func mustDuration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

// simDefaultModel is the model an experiment names when its endpoint is a
// bare sim(...): the simulator answers to any model name.
var simDefaultModel = sim.DefaultConfig().Model

package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
)

// conversations(turns=DIST|int, input_tokens=DIST|int,
// output_tokens=DIST|int|None, think_time=DIST|number (ms, 0),
// system_prompt_tokens=0, shared_system_prompt=True, sessions=100, seed=0,
// name=None, deterministic_output=False): multi-turn sessions (SPEC §4).
// Every turn resends the whole history before it; think_time is the wait
// in milliseconds after an answer before the next turn, like GenAI-Perf's
// --session-turn-delay-mean.
func conversationsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		turns, input, output, think distArg
		systemTokens, seed          int
		shared                      = true
		sessions                    = 100
		name                        string
		deterministic               bool
	)
	if err := unpack(b.Name(), args, kwargs, "turns", &turns, "input_tokens", &input, "output_tokens??", &output,
		"think_time?", &think, "system_prompt_tokens?", &systemTokens, "shared_system_prompt?", &shared,
		"sessions?", &sessions, "seed?", &seed, "name??", &name, "deterministic_output?", &deterministic); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		param    string
		value, m int
	}{{"system_prompt_tokens", systemTokens, 0}, {"sessions", sessions, 1}, {"seed", seed, 0}} {
		if c.value < c.m {
			return nil, paramErrorf(b.Name(), c.param, "got %d, want an int >= %d", c.value, c.m)
		}
	}
	if turns.dist.Mean() < 1 {
		return nil, paramErrorf(b.Name(), "turns", "got %s, want a mean of at least 1 turn", turns.dist)
	}
	if deterministic && output.dist == nil {
		return nil, paramErrorf(b.Name(), "deterministic_output", "needs output_tokens")
	}
	src := dataset.Conversations{Turns: turns.dist, Input: input.dist, Output: output.dist, Think: think.dist,
		SystemTokens: systemTokens, SharedSystem: shared, Deterministic: deterministic,
		Count: sessions, Seed: uint64(seed)}
	if err := src.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	attrs := starlark.StringDict{"sessions": integer(sessions), "seed": integer(seed)}
	return newDatasetValue("conversations", name, src, attrs), nil
}

// users(n, qps, ramp_up=None): n users whose turns together arrive at qps per second:
// each user sends its next turn n/qps seconds after its previous one was
// sent, or as soon as the answer arrives when it took longer — never in a
// catch-up burst. Users start a fraction of a period apart, each joining
// its first conversation at a random turn, so the load is steady from the
// first second (AIPerf's user-centric mode); with ramp_up the users start
// spread over it instead.
func usersBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		n    int
		qps  number
		ramp starlark.Value
	)
	if err := unpack(b.Name(), args, kwargs, "n", &n, "qps", &qps, "ramp_up??", &ramp); err != nil {
		return nil, err
	}
	up, err := rampUp(b.Name(), ramp)
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, paramErrorf(b.Name(), "n", "got %d, want an int >= 1", n)
	}
	if qps <= 0 {
		return nil, paramErrorf(b.Name(), "qps", "got %s, want requests per second > 0", num(float64(qps)))
	}
	l := plan.Load{Users: n, Rate: float64(qps), RampUp: up}
	return newLoadValue(l, rampAttrs(up, starlark.StringDict{"users": integer(n), "qps": float(l.Rate)})), nil
}

// rankings(queries, passages, batch_size=1, entries=100, seed=0): query and
// passage texts for a reranking endpoint (api="rankings", GenAI-Perf's
// rankings endpoint type); each entry is one query with batch_size
// passages (GenAI-Perf's --batch-size-text). queries and passages are
// datasets: jsonl() files or synthetic() texts.
func rankingsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		queries, passages starlark.Value
		batch, entries    = 1, 100
		seed              int
	)
	if err := unpack(b.Name(), args, kwargs, "queries", &queries, "passages", &passages,
		"batch_size?", &batch, "entries?", &entries, "seed?", &seed); err != nil {
		return nil, err
	}
	var parts [2]dataset.Source
	for i, v := range []struct {
		name  string
		value starlark.Value
	}{{"queries", queries}, {"passages", passages}} {
		d, ok := v.value.(*datasetValue)
		if !ok || d.converses() || d.kind == "rankings" {
			return nil, paramErrorf(b.Name(), v.name, "got %s, want a dataset of single texts (jsonl() or synthetic())", v.value.Type())
		}
		parts[i] = d.src
	}
	for _, c := range []struct {
		param    string
		value, m int
	}{{"batch_size", batch, 1}, {"entries", entries, 1}, {"seed", seed, 0}} {
		if c.value < c.m {
			return nil, paramErrorf(b.Name(), c.param, "got %d, want an int >= %d", c.value, c.m)
		}
	}
	src := dataset.Rankings{Queries: parts[0], Passages: parts[1], BatchSize: batch, Entries: entries, Seed: uint64(seed)}
	attrs := starlark.StringDict{"batch_size": integer(batch), "entries": integer(entries), "seed": integer(seed)}
	return newDatasetValue("rankings", "", src, attrs), nil
}

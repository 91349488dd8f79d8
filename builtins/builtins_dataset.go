package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
)

// datasetValue is what synthetic(), jsonl(), sharegpt(), trace() and mix()
// return (SPEC §4): the runtime's dataset.Source, the name its entries
// carry inside a mix, and which builtin made it (sweeps over token lengths
// need a synthetic one, replay() a trace).
type datasetValue struct {
	object
	src  dataset.Source
	name string
	kind string
}

func newDatasetValue(kind, name string, src dataset.Source, attrs starlark.StringDict) *datasetValue {
	if attrs == nil {
		attrs = starlark.StringDict{}
	}
	attrs["kind"] = str(kind)
	attrs["name"] = noneOr(name, str)
	return &datasetValue{object: newObject("dataset", src.String(), attrs, false), src: src, name: name, kind: kind}
}

// synthetic(input_tokens=DIST|int, output_tokens=DIST|int|None,
// prefix_tokens=0, prefixes=1, seed=0, name=None, entries=100,
// deterministic_output=False): generated prompts of sampled lengths.
// Without output_tokens the server decides how much to write;
// deterministic_output also sends min_tokens (SPEC §5).
func syntheticBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		input, output          distArg
		prefixTokens, prefixes = 0, 1
		seed                   int
		name                   string
		entries                = 100
		deterministic          bool
	)
	if err := unpack(b.Name(), args, kwargs, "input_tokens", &input, "output_tokens??", &output,
		"prefix_tokens?", &prefixTokens, "prefixes?", &prefixes, "seed?", &seed, "name??", &name,
		"entries?", &entries, "deterministic_output?", &deterministic); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		param    string
		value, m int
	}{{"prefix_tokens", prefixTokens, 0}, {"prefixes", prefixes, 1}, {"seed", seed, 0}, {"entries", entries, 1}} {
		if c.value < c.m {
			return nil, paramErrorf(b.Name(), c.param, "got %d, want an int >= %d", c.value, c.m)
		}
	}
	if deterministic && output.dist == nil {
		return nil, paramErrorf(b.Name(), "deterministic_output", "needs output_tokens")
	}
	src := dataset.Synthetic{Input: input.dist, Output: output.dist, Deterministic: deterministic,
		PrefixTokens: prefixTokens, Prefixes: prefixes, Entries: entries, Seed: uint64(seed)}
	if err := src.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	attrs := starlark.StringDict{"entries": integer(entries), "seed": integer(seed)}
	return newDatasetValue("synthetic", name, src, attrs), nil
}

// jsonl(path): a GenAI-Perf input file. Declared now, read by the
// datasets issue: the path is checked at load time and a run refuses it.
func jsonlBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs, false)
}

// sharegpt(path): a ShareGPT JSON file; declared like jsonl().
func sharegptBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs, false)
}

// trace(path, format="mooncake"): a timestamped trace for replay();
// declared like jsonl().
func traceBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs, true)
}

func fileDataset(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, isTrace bool) (starlark.Value, error) {
	var path string
	format := oneOf("mooncake", "mooncake")
	pairs := []any{"path", &path}
	if isTrace {
		pairs = append(pairs, "format?", &format)
	}
	if err := unpack(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	abs, err := sessionOf(thread).files.existing(path)
	if err != nil {
		return nil, paramError(b.Name(), "path", err)
	}
	src := fileSource{Kind: b.Name(), Path: abs, Shown: path}
	if isTrace {
		src.Format = format.value
	}
	return newDatasetValue(b.Name(), "", src, starlark.StringDict{"path": str(path)}), nil
}

// mix(datasets, weights=None): a weighted mixture, drawn with the
// experiment's seed; each entry is tagged with its component's name
// (synthetic(name=...)) so metrics can be split per component.
func mixBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list starlark.Value
	var weights numberList
	if err := unpack(b.Name(), args, kwargs, "datasets", &list, "weights??", &weights); err != nil {
		return nil, err
	}
	parts, err := datasetList(list)
	if err != nil {
		return nil, paramError(b.Name(), "datasets", err)
	}
	m := dataset.Mix{Weights: weights}
	seen := map[string]bool{}
	for _, p := range parts {
		if p.name != "" && seen[p.name] {
			return nil, paramErrorf(b.Name(), "datasets", "two datasets are named %q; names tell components apart", p.name)
		}
		seen[p.name] = true
		m.Components = append(m.Components, p.src)
		m.Names = append(m.Names, p.name)
	}
	if weights != nil && len(weights) != len(parts) {
		return nil, paramErrorf(b.Name(), "weights", "got %d weights for %d datasets", len(weights), len(parts))
	}
	if err := m.Validate(); err != nil {
		return nil, err // "mix: weights must be >= 0, got -1"
	}
	return newDatasetValue("mix", "", m, nil), nil
}

// datasetList unpacks a non-empty list or tuple of datasets.
func datasetList(v starlark.Value) ([]*datasetValue, error) {
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr {
		return nil, fmt.Errorf("got %s, want list of datasets", v.Type())
	}
	if seq.Len() == 0 {
		return nil, fmt.Errorf("got an empty list, want at least one dataset")
	}
	out := make([]*datasetValue, seq.Len())
	for i := range out {
		d, ok := seq.Index(i).(*datasetValue)
		if !ok {
			return nil, fmt.Errorf("at index %d: got %s, want dataset", i, seq.Index(i).Type())
		}
		out[i] = d
	}
	return out, nil
}

// fileSource is a dataset read from a file, declared by a scenario before
// its reader exists (jsonl, sharegpt, trace arrive with the datasets
// issue). Build refuses loudly so a run never goes ahead without it.
type fileSource struct {
	// Kind is the builtin that declared it: jsonl, sharegpt or trace.
	Kind string
	// Path is absolute; Shown is the path as the script wrote it.
	Path, Shown string
	// Format is a trace's format (mooncake).
	Format string
	// ReplaySpeed is set when an experiment replays the trace.
	ReplaySpeed float64
}

func (f fileSource) Build(int) ([]dataset.Entry, error) {
	return nil, fmt.Errorf("%s() datasets (%s) are %w: declared, but reading them arrives with the datasets work",
		f.Kind, f.Path, runtime.ErrNotSupported)
}

func (f fileSource) String() string {
	args := []string{quote(f.Shown)}
	if f.Kind == "trace" {
		args = append(args, "format="+quote(f.Format))
	}
	s := f.Kind + "(" + strings.Join(args, ", ") + ")"
	if f.ReplaySpeed > 0 {
		s += " replayed at speed " + num(f.ReplaySpeed)
	}
	return s
}

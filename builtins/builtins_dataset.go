package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

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
	// info is what reading a file dataset found.
	info dataset.FileInfo
	// media is set when entries carry pictures or audio clips, which only
	// a chat or image-retrieval endpoint sends.
	media bool
}

func newDatasetValue(kind, name string, src dataset.Source, attrs starlark.StringDict) *datasetValue {
	if attrs == nil {
		attrs = starlark.StringDict{}
	}
	attrs["kind"] = str(kind)
	attrs["name"] = noneOr(name, str)
	return &datasetValue{object: newObject("dataset", src.String(), attrs, false), src: src, name: name, kind: kind}
}

// converses reports whether the dataset is made of multi-turn sessions.
func (d *datasetValue) converses() bool {
	_, ok := dataset.Sessioned(d.src)
	return ok
}

// synthetic(input_tokens=DIST|int, output_tokens=DIST|int|None,
// prefix_tokens=0, prefixes=1, seed=0, name=None, entries=100,
// deterministic_output=False, images=None, audio=None): generated prompts
// of sampled lengths, each with the pictures of images=image(...) and the
// clips of audio=audio(...).
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
		media                  mediaArgs
	)
	if err := unpack(b.Name(), args, kwargs, "input_tokens", &input, "output_tokens??", &output,
		"prefix_tokens?", &prefixTokens, "prefixes?", &prefixes, "seed?", &seed, "name??", &name,
		"entries?", &entries, "deterministic_output?", &deterministic,
		"images??", &media.images, "audio??", &media.audio); err != nil {
		return nil, err
	}
	images, audio, err := media.specs(b.Name())
	if err != nil {
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
	if err := checkMediaPool(b.Name(), entries, images, audio); err != nil {
		return nil, err
	}
	attrs := starlark.StringDict{"entries": integer(entries), "seed": integer(seed)}
	d := newDatasetValue("synthetic", name, withMedia(src, images, audio), attrs)
	d.media = images != nil || audio != nil
	return d, nil
}

// jsonl(path): a GenAI-Perf input file, one {"text" or "text_input",
// "output_length"} object per line.
func jsonlBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs)
}

// sharegpt(path, multi_turn=False): a ShareGPT JSON file; each
// conversation's first human turn is a prompt, the gpt turn after it its
// output length — or, multi_turn, every such pair a turn of the
// conversation's session.
func sharegptBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs)
}

// trace(path, format="mooncake"): a timestamped trace, replayable with
// replay().
func traceBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fileDataset(thread, b, args, kwargs)
}

// fileSource is a dataset read from a file; Check reads it all, so a
// malformed file is a load error naming file:line and field, found before
// any traffic is sent (and by llmbench check).
type fileSource interface {
	dataset.Source
	Check() (dataset.FileInfo, error)
}

func fileDataset(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := oneOf("mooncake", "mooncake")
	multiTurn := false
	pairs := []any{"path", &path}
	switch b.Name() {
	case "trace":
		pairs = append(pairs, "format?", &format)
	case "sharegpt":
		pairs = append(pairs, "multi_turn?", &multiTurn)
	}
	if err := unpack(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	abs, err := sessionOf(thread).files.existing(path)
	if err != nil {
		return nil, paramError(b.Name(), "path", err)
	}
	var src fileSource
	switch b.Name() {
	case "jsonl":
		src = dataset.JSONL{Path: abs, Shown: path}
	case "sharegpt":
		src = dataset.ShareGPT{Path: abs, Shown: path, MultiTurn: multiTurn}
	default:
		src = dataset.Trace{Path: abs, Shown: path, Format: format.value}
	}
	info, err := src.Check()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	attrs := starlark.StringDict{"path": str(path), "entries": integer(info.Entries)}
	switch b.Name() {
	case "sharegpt":
		attrs["skipped"] = integer(info.Skipped)
		attrs["multi_turn"] = starlark.Bool(multiTurn)
	case "trace":
		attrs["format"] = str(format.value)
		attrs["timed"] = starlark.Bool(info.Timed)
	}
	d := newDatasetValue(b.Name(), "", src, attrs)
	d.info, d.media = info, info.Media > 0
	return d, nil
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
	seen, media := map[string]bool{}, false
	for _, p := range parts {
		if p.name != "" && seen[p.name] {
			return nil, paramErrorf(b.Name(), "datasets", "two datasets are named %q; names tell components apart", p.name)
		}
		seen[p.name] = true
		m.Components = append(m.Components, p.src)
		m.Names = append(m.Names, p.name)
		media = media || p.media
	}
	if weights != nil && len(weights) != len(parts) {
		return nil, paramErrorf(b.Name(), "weights", "got %d weights for %d datasets", len(weights), len(parts))
	}
	if err := m.Validate(); err != nil {
		return nil, err // "mix: weights must be >= 0, got -1"
	}
	d := newDatasetValue("mix", "", m, nil)
	d.media = media
	return d, nil
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

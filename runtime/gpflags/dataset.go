package gpflags

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// Source picks the prompts: --input-file when given (with GenAI-Perf's
// output lengths for lines that set none), else GenAI-Perf's synthetic
// prompts. The runtime makes them token-exact under the endpoint's
// tokenizer.
func (c *Profile) Source() (dataset.Source, error) {
	src, err := c.prompts()
	if err != nil {
		return nil, err
	}
	src = c.withMedia(src)
	if c.InputFile == "" || c.OutputTokensMean == 0 {
		return src, nil
	}
	out := dataset.Normal{Mu: float64(c.OutputTokensMean), Sigma: float64(c.OutputTokensStddev)}
	return dataset.DefaultOutputs{Source: src, Output: out, Seed: uint64(c.RandomSeed), Deterministic: c.OutputTokensMeanDeterministic}, nil
}

// prompts is the prompt source the flags name.
func (c *Profile) prompts() (dataset.Source, error) {
	path, isPayload := strings.CutPrefix(c.InputFile, "payload:")
	switch {
	case c.EndpointType == string(transport.Rankings):
		return c.rankings()
	case c.InputFile == "" && c.SessionMode():
		return c.conversations(), nil
	case c.InputFile == "":
		return c.synthetic(), nil
	case strings.HasPrefix(c.InputFile, "synthetic:"):
		return nil, failure.Inputf("--input-file %q: named synthetic inputs are not supported yet", c.InputFile)
	case isPayload:
		trace := dataset.Trace{Path: path, Seed: uint64(c.RandomSeed), DelayRatio: c.SessionDelayRatio}
		info, err := trace.Check()
		if err != nil {
			return nil, failure.Inputf("--input-file: %w", err)
		}
		if c.FixedSchedule && !info.Timed {
			return nil, failure.Inputf("--fixed-schedule: %s has no timestamps", path)
		}
		return trace, nil
	}
	if st, err := os.Stat(c.InputFile); err == nil && st.IsDir() {
		return nil, failure.Inputf("--input-file %s: a directory of .jsonl files is not supported yet", c.InputFile)
	}
	jsonl := dataset.JSONL{Path: c.InputFile}
	if _, err := jsonl.Check(); err != nil {
		return nil, failure.Inputf("--input-file: %w", err)
	}
	return jsonl, nil
}

// synthetic is GenAI-Perf's synthetic source: lengths int(gauss(mean, sd)).
func (c *Profile) synthetic() dataset.Synthetic {
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

// rankings is the source of --endpoint-type rankings, as GenAI-Perf
// builds it: --input-file DIR holding queries.jsonl and passages.jsonl, or
// synthetic queries and passages (no --input-file, or
// synthetic:queries,passages) of the synthetic prompt length; each request
// pairs a query with --batch-size-text passages.
func (c *Profile) rankings() (dataset.Source, error) {
	r := dataset.Rankings{BatchSize: c.BatchSizeText, Entries: c.NumDatasetEntries, Seed: uint64(c.RandomSeed)}
	switch c.InputFile {
	case "", "synthetic:queries,passages":
		q := c.synthetic()
		q.Output, q.Deterministic = nil, false
		p := q
		p.Seed ^= 0x70617373 // passages differ from the queries
		r.Queries, r.Passages = q, p
		return r, nil
	}
	st, err := os.Stat(c.InputFile)
	if err != nil || !st.IsDir() {
		return nil, failure.Inputf("--input-file %s with --endpoint-type rankings: want a folder holding queries.jsonl and passages.jsonl, or synthetic:queries,passages", c.InputFile)
	}
	parts := [2]dataset.Source{}
	for i, name := range []string{"queries", "passages"} {
		f := dataset.JSONL{Path: filepath.Join(c.InputFile, name+".jsonl")}
		if _, err := f.Check(); err != nil {
			return nil, failure.Inputf("--input-file: rankings %s: %w", name, err)
		}
		parts[i] = f
	}
	r.Queries, r.Passages = parts[0], parts[1]
	return r, nil
}

// conversations is the synthetic sessions the flags describe.
func (c *Profile) conversations() dataset.Conversations {
	s := &c.SessionFlags
	conv := dataset.Conversations{
		Turns: dataset.Normal{Mu: float64(s.SessionTurnsMean), Sigma: float64(s.SessionTurnsStddev)},
		Input: dataset.Normal{Mu: float64(c.SyntheticInputTokensMean), Sigma: float64(c.SyntheticInputTokensStddev)},
		Count: max(s.NumSessions, 0), Seed: uint64(c.RandomSeed), Deterministic: c.OutputTokensMeanDeterministic,
	}
	if c.OutputTokensMean > 0 {
		conv.Output = dataset.Normal{Mu: float64(c.OutputTokensMean), Sigma: float64(c.OutputTokensStddev)}
	}
	if s.SessionTurnDelayMean > 0 || s.SessionTurnDelayStddev > 0 {
		conv.Think = dataset.Normal{Mu: float64(s.SessionTurnDelayMean), Sigma: float64(s.SessionTurnDelayStddev)}
	}
	return conv
}

// datasetFlags is the flag that sets each dataset parameter the memory
// check can blame (runtime.DatasetMemoryError.Field).
var datasetFlags = map[string]string{
	"entries":       "--num-dataset-entries",
	"input_tokens":  "--synthetic-input-tokens-mean",
	"prefix_tokens": "--prefix-prompt-length",
	"prefixes":      "--num-prefix-prompts",
	"sessions":      "--num-sessions",
	"turns":         "--session-turns-mean",
	"batch_size":    "--batch-size-text",
}

// checkDatasetMemory refuses, before anything is drawn or sent, prompts
// that would not fit in memory (`-b 1e9`, `--num-sessions 1e12`,
// `--session-turns-mean 1e9` were a fatal out-of-memory), naming the
// flag at fault and the memory it would take.
func checkDatasetMemory(src dataset.Source) error {
	err := runtime.CheckDatasetMemory(src, plan.PointSpec{})
	var me *runtime.DatasetMemoryError
	if !errors.As(err, &me) {
		return err
	}
	if flag, ok := datasetFlags[me.Field]; ok {
		return failure.Inputf("%s", me.Describe(flag+" "+strconv.FormatFloat(me.Value, 'f', -1, 64)))
	}
	return failure.Inputf("%w", err)
}

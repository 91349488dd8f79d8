package main

import (
	"errors"
	"strconv"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
)

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
	err := runtime.CheckDatasetMemory(src, runtime.PointSpec{})
	var me *runtime.DatasetMemoryError
	if !errors.As(err, &me) {
		return err
	}
	if flag, ok := datasetFlags[me.Field]; ok {
		return invalid("%s", me.Describe(flag+" "+strconv.FormatFloat(me.Value, 'f', -1, 64)))
	}
	return invalid("%w", err)
}

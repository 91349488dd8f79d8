package main

import (
	"os"
	"strings"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/runtime"
)

// outPath is one output a command was told to write, and its flag.
type outPath struct{ flag, path string }

// checkApart refuses, before anything is opened for writing, any output
// that is, contains or lies inside one of inputs
// (artifacts.CheckOutputApart): the one rule every writing command
// applies so that nothing measured is written over.
func checkApart(outs []outPath, inputs ...string) error {
	for _, o := range outs {
		if err := artifacts.CheckOutputApart(o.flag, o.path, inputs...); err != nil {
			return err
		}
	}
	return nil
}

// paths are the outputs the flags name.
func (o *outputFlags) paths() []outPath {
	return []outPath{{"--out", o.Out}, {"--junit", o.Junit}, {"--summary-md", o.SummaryMd}}
}

// inputFile is the file --input-file names, without its payload: prefix.
func inputFile(flag string) string {
	return strings.TrimPrefix(flag, "payload:")
}

// scenarioInputs are what run and check read that a run's outputs must
// stay apart from: the scenario file and every baseline, given by
// --baseline or by experiment(baseline=).
func scenarioInputs(file string, b *baselineFlags, scen *runtime.Scenario) []string {
	inputs := []string{file, b.Baseline}
	for _, e := range scen.Experiments {
		inputs = append(inputs, e.Baseline)
	}
	return inputs
}

// outputsApart refuses an --artifact-dir over the prompts file or the
// tokenizer profile and analyze read.
func (c *profileFlags) outputsApart() error {
	inputs := []string{inputFile(c.InputFile)}
	if _, err := os.Stat(c.Tokenizer); c.Tokenizer != "" && err == nil { // else a model id
		inputs = append(inputs, c.Tokenizer)
	}
	return checkApart([]outPath{{"--artifact-dir", c.ArtifactDir}}, inputs...)
}

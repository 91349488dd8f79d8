package main

import (
	"strings"

	"github.com/llmbench/llmbench/reports/artifacts"
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

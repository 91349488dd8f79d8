package main

import (
	"math"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// sweepKind is one value of --sweep-type: what it is called in GenAI-Perf's
// directory names and files, what runtime calls it, and which profile flag
// a point sets.
type sweepKind struct {
	name  string
	param string
	// fractional values are allowed (a request rate of 0.5/s), in a list.
	fractional bool
	set        func(f *profileFlags, v float64)
}

// sweepKinds are the sweepable parameters. Unlike GenAI-Perf, whose
// input_sequence_length sweep only renamed directories, the ISL and OSL
// sweeps change the prompts' length and the requested max_tokens.
var sweepKinds = []sweepKind{
	{"concurrency", metrics.ParamConcurrency, false, func(f *profileFlags, v float64) { f.Concurrency = int(v) }},
	{"request_rate", metrics.ParamRate, true, func(f *profileFlags, v float64) { f.RequestRate = v }},
	{"input_sequence_length", metrics.ParamInputTokens, false, func(f *profileFlags, v float64) { f.SyntheticInputTokensMean = int(v) }},
	{"output_sequence_length", metrics.ParamOutputTokens, false, func(f *profileFlags, v float64) { f.OutputTokensMean = int(v) }},
}

// sweepSpec is a parsed sweep: the parameter and its values in run order.
type sweepSpec struct {
	kind   sweepKind
	values []float64
	// echo is the sweep as input_config shows it.
	echo genaiperf.Sweep
}

// parseSweep reads --sweep-type, --sweep-range and --sweep-list with
// GenAI-Perf's rules (gpflags) and messages.
func parseSweep(typ, rng, list string) (sweepSpec, error) {
	kind, err := lookupSweepKind(typ)
	if err != nil {
		return sweepSpec{}, err
	}
	spec := sweepSpec{kind: kind, echo: genaiperf.Sweep{Type: kind.name}}
	switch {
	case rng != "" && list != "":
		return spec, invalid("--sweep-range and --sweep-list are mutually exclusive")
	case list != "":
		spec.values, err = gpflags.ParseSweepList(kind.name, kind.fractional, list)
		spec.echo.List = spec.values
		return spec, err
	case rng == "":
		rng = gpflags.DefaultSweepRange
	}
	r, err := gpflags.ParseSweepRange(kind.name, rng)
	spec.values = r.Values
	if r.Min == 0 {
		spec.echo.List = r.Values
	}
	spec.echo.Min, spec.echo.Max = r.Min, r.Max
	return spec, err
}

func lookupSweepKind(typ string) (sweepKind, error) {
	for _, k := range sweepKinds {
		if k.name == typ {
			return k, nil
		}
	}
	return sweepKind{}, gpflags.UnknownSweep(typ)
}

// objective names a point's folder suffix as GenAI-Perf's analyze does:
// the swept parameter and its value, "concurrency8", "request_rate16"
// (GenAI-Perf's sweep values are ints; a fractional rate keeps its
// fraction), "input_sequence_length512".
func objective(kind sweepKind, v float64) string {
	if v == math.Trunc(v) {
		return kind.name + strconv.FormatFloat(v, 'f', 0, 64)
	}
	return kind.name + strconv.FormatFloat(v, 'f', -1, 64)
}

package main

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
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

// unsupportedSweeps are GenAI-Perf sweep types llmbench refuses, with why.
var unsupportedSweeps = map[string]string{
	"batch_size":          "llmbench sends one prompt per request, and GenAI-Perf's batch_size sweep was broken (its config only knew runtime_batch_size)",
	"num_dataset_entries": "prompts are cycled, so the dataset size does not change a point (GenAI-Perf's sweep did not apply it to the inputs either); set --num-dataset-entries",
}

// sweepSpec is a parsed sweep: the parameter and its values in run order.
type sweepSpec struct {
	kind   sweepKind
	values []float64
	// echo is the sweep as input_config shows it.
	echo genaiperf.Sweep
}

// defaultSweepRange is GenAI-Perf's analyze default: concurrency 1 to 1024.
const defaultSweepRange = "1:1024"

// maxSweepPoints bounds a stepped --sweep-range, whose size the user may
// not have worked out: 1:1000000:1 would plan a million measurements.
const maxSweepPoints = 10000

// parseSweep reads --sweep-type, --sweep-range and --sweep-list with
// GenAI-Perf's rules (parser.py _process_sweep_args) and messages.
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
		spec.values, err = parseSweepList(kind, list)
		spec.echo.List = spec.values
		return spec, err
	case rng == "":
		rng = defaultSweepRange
	}
	lo, hi, step, err := parseSweepRange(kind, rng)
	if err != nil {
		return spec, err
	}
	if step > 0 { // range(min, max + 1, step), which GenAI-Perf turns into a list
		n := (hi-lo)/step + 1 // counted first: v += step up to a max near MaxInt would wrap and never end
		if n > maxSweepPoints {
			return spec, invalid("--sweep-range %s gives %d points, more than the %d a sweep may have (each is a full measurement)", rng, n, maxSweepPoints)
		}
		for i := range n {
			spec.values = append(spec.values, float64(lo+i*step))
		}
		spec.echo.List = spec.values
		return spec, nil
	}
	spec.values = powersOfTwo(lo, hi)
	spec.echo.Min, spec.echo.Max = lo, hi
	return spec, nil
}

func lookupSweepKind(typ string) (sweepKind, error) {
	for _, k := range sweepKinds {
		if k.name == typ {
			return k, nil
		}
	}
	if why, ok := unsupportedSweeps[typ]; ok {
		return sweepKind{}, invalid("--sweep-type %s is not supported: %s", typ, why)
	}
	return sweepKind{}, invalid("--sweep-type: got %q, want concurrency, request_rate, input_sequence_length or output_sequence_length", typ)
}

// parseSweepRange checks MIN:MAX[:STEP] as GenAI-Perf's _check_sweep_range.
func parseSweepRange(kind sweepKind, s string) (lo, hi, step int, err error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, 0, 0, invalid("--sweep-range: got %q; the format must be min:max or min:max:step", s)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, convErr := strconv.Atoi(strings.TrimSpace(p))
		if convErr != nil {
			return 0, 0, 0, invalid("--sweep-range: %s value %q must be an int", [...]string{"min", "max", "step"}[i], p)
		}
		nums[i] = n
	}
	lo, hi, step = nums[0], nums[1], nums[2]
	switch {
	case lo < 1 || hi < 1:
		return 0, 0, 0, invalid("--sweep-range %s: min/max value must be positive", s)
	case len(parts) == 3 && step < 1:
		return 0, 0, 0, invalid("--sweep-range %s: step value must be positive", s)
	case lo >= hi:
		return 0, 0, 0, invalid("--sweep-range %s: max must be greater than min", s)
	case kind.name == "concurrency" && (!isPowerOfTwo(lo) || !isPowerOfTwo(hi)):
		return 0, 0, 0, invalid("--sweep-range %s: min/max values must be powers of 2 when sweeping concurrency", s)
	case kind.name == "concurrency" && len(parts) == 3:
		return 0, 0, 0, invalid("--sweep-range %s: step is not supported when sweeping concurrency", s)
	}
	return lo, hi, step, nil
}

// parseSweepList reads a comma-separated list, kept in the order given.
func parseSweepList(kind sweepKind, s string) ([]float64, error) {
	var values []float64
	seen := map[float64]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		switch {
		case err != nil || math.IsInf(v, 0) || math.IsNaN(v):
			return nil, invalid("--sweep-list: %q is not a number", p)
		case !kind.fractional && v != math.Trunc(v):
			return nil, invalid("--sweep-list: %s values must be integers, got %s", kind.name, p)
		case v <= 0:
			return nil, invalid("--sweep-list: values must be positive, got %s", p)
		case seen[v]:
			return nil, invalid("--sweep-list: %s is given twice", p)
		}
		seen[v] = true
		values = append(values, v)
	}
	return values, nil
}

// powersOfTwo is GenAI-Perf's exponential range: 2^k for k from
// int(log2(lo)) to int(log2(hi)), so 3:100 gives 2, 4, ..., 64.
func powersOfTwo(lo, hi int) []float64 {
	var values []float64
	for k := bits.Len(uint(lo)) - 1; k <= bits.Len(uint(hi))-1; k++ {
		values = append(values, float64(uint64(1)<<k))
	}
	return values
}

func isPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

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

// sweepList is --sweep-list as given. An empty list is refused when the
// flag is read: as a plain string it could not be told from no flag at
// all, and `--sweep-list ""` (a shell variable left empty) silently ran
// the default sweep of 11 points.
type sweepList string

// UnmarshalText refuses an empty or blank list.
func (l *sweepList) UnmarshalText(b []byte) error {
	if strings.TrimSpace(string(b)) == "" {
		return errors.New("got an empty list, want comma-separated values such as 1,2,4,8")
	}
	*l = sweepList(b)
	return nil
}

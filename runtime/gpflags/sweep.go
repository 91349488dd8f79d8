package gpflags

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/runtime/failure"
)

// unsupportedSweeps are GenAI-Perf sweep types llmbench refuses, with why.
var unsupportedSweeps = map[string]string{
	"batch_size":          "llmbench sends one prompt per request, and GenAI-Perf's batch_size sweep was broken (its config only knew runtime_batch_size)",
	"num_dataset_entries": "prompts are cycled, so the dataset size does not change a point (GenAI-Perf's sweep did not apply it to the inputs either); set --num-dataset-entries",
}

// UnknownSweep is the error for a --sweep-type llmbench does not sweep:
// why, for a GenAI-Perf type it refuses, else what it takes.
func UnknownSweep(typ string) error {
	if why, ok := unsupportedSweeps[typ]; ok {
		return failure.Inputf("--sweep-type %s is not supported: %s", typ, why)
	}
	return failure.Inputf("--sweep-type: got %q, want concurrency, request_rate, input_sequence_length or output_sequence_length", typ)
}

// DefaultSweepRange is GenAI-Perf's analyze default: concurrency 1 to 1024.
const DefaultSweepRange = "1:1024"

// MaxSweepPoints bounds a stepped --sweep-range, whose size the user may
// not have worked out: 1:1000000:1 would plan a million measurements.
const MaxSweepPoints = 10000

// SweepRange is a parsed --sweep-range: the values in run order, and
// MIN and MAX for a range of powers of two (0 for a stepped one, which
// GenAI-Perf turns into a list).
type SweepRange struct {
	Values   []float64
	Min, Max int
}

// ParseSweepRange reads --sweep-range s for the sweep type kind with
// GenAI-Perf's rules (parser.py _process_sweep_args) and messages.
func ParseSweepRange(kind, s string) (SweepRange, error) {
	lo, hi, step, err := CheckSweepRange(kind, s)
	if err != nil {
		return SweepRange{}, err
	}
	if step == 0 {
		return SweepRange{Values: powersOfTwo(lo, hi), Min: lo, Max: hi}, nil
	}
	n := (hi-lo)/step + 1 // range(min, max + 1, step), counted first: v += step up to a max near MaxInt would wrap and never end
	if n > MaxSweepPoints {
		return SweepRange{}, failure.Inputf("--sweep-range %s gives %d points, more than the %d a sweep may have (each is a full measurement)", s, n, MaxSweepPoints)
	}
	var r SweepRange
	for i := range n {
		r.Values = append(r.Values, float64(lo+i*step))
	}
	return r, nil
}

// CheckSweepRange checks MIN:MAX[:STEP] as GenAI-Perf's _check_sweep_range.
func CheckSweepRange(kind, s string) (lo, hi, step int, err error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, 0, 0, failure.Inputf("--sweep-range: got %q; the format must be min:max or min:max:step", s)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, convErr := strconv.Atoi(strings.TrimSpace(p))
		if convErr != nil {
			return 0, 0, 0, failure.Inputf("--sweep-range: %s value %q must be an int", [...]string{"min", "max", "step"}[i], p)
		}
		nums[i] = n
	}
	lo, hi, step = nums[0], nums[1], nums[2]
	switch {
	case lo < 1 || hi < 1:
		return 0, 0, 0, failure.Inputf("--sweep-range %s: min/max value must be positive", s)
	case len(parts) == 3 && step < 1:
		return 0, 0, 0, failure.Inputf("--sweep-range %s: step value must be positive", s)
	case lo >= hi:
		return 0, 0, 0, failure.Inputf("--sweep-range %s: max must be greater than min", s)
	case kind == "concurrency" && (!isPowerOfTwo(lo) || !isPowerOfTwo(hi)):
		return 0, 0, 0, failure.Inputf("--sweep-range %s: min/max values must be powers of 2 when sweeping concurrency", s)
	case kind == "concurrency" && len(parts) == 3:
		return 0, 0, 0, failure.Inputf("--sweep-range %s: step is not supported when sweeping concurrency", s)
	}
	return lo, hi, step, nil
}

// ParseSweepList reads a comma-separated --sweep-list for the sweep type
// kind, kept in the order given; fractional values are allowed only when
// the kind is fractional (a request rate of 0.5/s).
func ParseSweepList(kind string, fractional bool, s string) ([]float64, error) {
	var values []float64
	seen := map[float64]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		switch {
		case err != nil || math.IsInf(v, 0) || math.IsNaN(v):
			return nil, failure.Inputf("--sweep-list: %q is not a number", p)
		case !fractional && v != math.Trunc(v):
			return nil, failure.Inputf("--sweep-list: %s values must be integers, got %s", kind, p)
		case v <= 0:
			return nil, failure.Inputf("--sweep-list: values must be positive, got %s", p)
		case seen[v]:
			return nil, failure.Inputf("--sweep-list: %s is given twice", p)
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

// SweepList is --sweep-list as given. An empty list is refused when the
// flag is read: as a plain string it could not be told from no flag at
// all, and `--sweep-list ""` (a shell variable left empty) silently ran
// the default sweep of 11 points.
type SweepList string

// UnmarshalText refuses an empty or blank list.
func (l *SweepList) UnmarshalText(b []byte) error {
	if strings.TrimSpace(string(b)) == "" {
		return errors.New("got an empty list, want comma-separated values such as 1,2,4,8")
	}
	*l = SweepList(b)
	return nil
}

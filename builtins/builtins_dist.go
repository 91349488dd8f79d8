package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/dataset"
)

// distValue is a length distribution: what fixed(), normal(), uniform(),
// lognormal() and choice() return and synthetic() takes (SPEC §4). Two
// distributions with the same parameters are equal.
type distValue struct {
	object
	dist dataset.Dist
}

func newDistValue(d dataset.Dist) (*distValue, error) {
	if err := dataset.ValidateDist(d); err != nil {
		return nil, err // already "normal: stddev must be >= 0, got -1"
	}
	attrs := starlark.StringDict{"mean": float(d.Mean())}
	return &distValue{object: newObject("distribution", d.String(), attrs, true), dist: d}, nil
}

// fixed(n): always n tokens.
func fixedBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n number
	if err := unpack(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	return newDistValue(dataset.Fixed{N: float64(n)})
}

// normal(mean, stddev): Gaussian lengths, GenAI-Perf's synthetic default.
func normalBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var mean, stddev number
	if err := unpack(b.Name(), args, kwargs, "mean", &mean, "stddev", &stddev); err != nil {
		return nil, err
	}
	return newDistValue(dataset.Normal{Mu: float64(mean), Sigma: float64(stddev)})
}

// uniform(lo, hi): lengths uniform on [lo, hi].
func uniformBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi number
	if err := unpack(b.Name(), args, kwargs, "lo", &lo, "hi", &hi); err != nil {
		return nil, err
	}
	return newDistValue(dataset.Uniform{Lo: float64(lo), Hi: float64(hi)})
}

// lognormal(mean, stddev): long-tailed lengths, given by the mean and
// standard deviation of the lengths themselves (not of their logarithm).
func lognormalBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var mean, stddev number
	if err := unpack(b.Name(), args, kwargs, "mean", &mean, "stddev", &stddev); err != nil {
		return nil, err
	}
	return newDistValue(dataset.LogNormal{Mu: float64(mean), Sigma: float64(stddev)})
}

// choice(values, weights=None): one of values, by relative weight.
func choiceBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var values, weights numberList
	if err := unpack(b.Name(), args, kwargs, "values", &values, "weights??", &weights); err != nil {
		return nil, err
	}
	for i, v := range values {
		if v < 0 {
			return nil, paramErrorf(b.Name(), "values", "at index %d: got %s, want a length >= 0", i, num(v))
		}
	}
	return newDistValue(dataset.Choice{Values: values, Weights: weights})
}

// distArg is a synthetic() length: a distribution, or a number meaning
// fixed(number).
type distArg struct{ dist dataset.Dist }

func (a *distArg) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case *distValue:
		a.dist = v.dist
		return nil
	case starlark.Int, starlark.Float:
		var n number
		if err := n.Unpack(v); err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("got %s, want a length >= 0", v)
		}
		a.dist = dataset.Fixed{N: float64(n)}
		return nil
	}
	return fmt.Errorf("got %s, want distribution or int", v.Type())
}

package dataset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Dist is a distribution of lengths in tokens. Sample may return values
// below zero or a fraction; callers clamp to what their field allows.
type Dist interface {
	Sample(rng *rand.Rand) float64
	// Mean is the distribution's expected value, for plans and reports.
	Mean() float64
	// String renders the distribution as the scenario language writes it.
	String() string
}

// Fixed always gives N.
type Fixed struct{ N float64 }

// Normal is a Gaussian; with Stddev 0 it is Fixed (GenAI-Perf's default).
type Normal struct{ Mu, Sigma float64 }

// Uniform is uniform on [Lo, Hi].
type Uniform struct{ Lo, Hi float64 }

// LogNormal is parameterised by the mean and standard deviation of the
// lengths themselves, not of their logarithm, because that is what users
// know about their traffic (e.g. "prompts average 800 tokens, sd 400").
type LogNormal struct{ Mu, Sigma float64 }

// Choice picks one of Values with the given relative Weights.
type Choice struct {
	Values  []float64
	Weights []float64
}

func (d Fixed) Sample(*rand.Rand) float64 { return d.N }
func (d Fixed) Mean() float64             { return d.N }
func (d Fixed) String() string            { return fmt.Sprintf("fixed(%s)", num(d.N)) }

func (d Normal) Sample(rng *rand.Rand) float64 {
	if d.Sigma == 0 {
		return d.Mu
	}
	return d.Mu + d.Sigma*rng.NormFloat64()
}
func (d Normal) Mean() float64  { return d.Mu }
func (d Normal) String() string { return fmt.Sprintf("normal(%s, %s)", num(d.Mu), num(d.Sigma)) }

func (d Uniform) Sample(rng *rand.Rand) float64 { return d.Lo + (d.Hi-d.Lo)*rng.Float64() }
func (d Uniform) Mean() float64                 { return (d.Lo + d.Hi) / 2 }
func (d Uniform) String() string                { return fmt.Sprintf("uniform(%s, %s)", num(d.Lo), num(d.Hi)) }

func (d LogNormal) Sample(rng *rand.Rand) float64 {
	mu, sigma := d.logParams()
	return math.Exp(mu + sigma*rng.NormFloat64())
}

// logParams converts the length mean and sd into the log-space parameters.
func (d LogNormal) logParams() (mu, sigma float64) {
	v := math.Log(1 + (d.Sigma*d.Sigma)/(d.Mu*d.Mu))
	return math.Log(d.Mu) - v/2, math.Sqrt(v)
}
func (d LogNormal) Mean() float64 { return d.Mu }
func (d LogNormal) String() string {
	return fmt.Sprintf("lognormal(%s, %s)", num(d.Mu), num(d.Sigma))
}

func (d Choice) Sample(rng *rand.Rand) float64 {
	if d.Weights == nil {
		return d.Values[rng.IntN(len(d.Values))]
	}
	return d.Values[pickWeighted(rng, d.Weights)]
}

func (d Choice) Mean() float64 {
	var sum, total float64
	for i, v := range d.Values {
		sum += v * d.weight(i)
		total += d.weight(i)
	}
	return sum / total
}

func (d Choice) weight(i int) float64 {
	if d.Weights == nil {
		return 1
	}
	return d.Weights[i]
}

func (d Choice) String() string {
	vals := make([]string, len(d.Values))
	for i, v := range d.Values {
		vals[i] = num(v)
	}
	if d.Weights == nil {
		return "choice([" + strings.Join(vals, ", ") + "])"
	}
	ws := make([]string, len(d.Weights))
	for i, w := range d.Weights {
		ws[i] = num(w)
	}
	return "choice([" + strings.Join(vals, ", ") + "], [" + strings.Join(ws, ", ") + "])"
}

// pickWeighted returns an index drawn with the relative weights.
func pickWeighted(rng *rand.Rand, weights []float64) int {
	var total float64
	for _, w := range weights {
		total += w
	}
	u := rng.Float64() * total
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	return len(weights) - 1
}

// ValidateDist reports a distribution that cannot produce lengths.
func ValidateDist(d Dist) error {
	switch d := d.(type) {
	case Fixed:
		if d.N < 0 {
			return fmt.Errorf("fixed: length must be >= 0, got %s", num(d.N))
		}
	case Normal:
		if d.Sigma < 0 {
			return fmt.Errorf("normal: stddev must be >= 0, got %s", num(d.Sigma))
		}
	case Uniform:
		if d.Lo < 0 || d.Hi < d.Lo {
			return fmt.Errorf("uniform: want 0 <= lo <= hi, got lo %s, hi %s", num(d.Lo), num(d.Hi))
		}
	case LogNormal:
		if d.Mu <= 0 || d.Sigma < 0 {
			return fmt.Errorf("lognormal: want mean > 0 and stddev >= 0, got %s, %s", num(d.Mu), num(d.Sigma))
		}
	case Choice:
		return validateChoice(d)
	case nil:
		return errors.New("no length distribution")
	}
	return nil
}

func validateChoice(d Choice) error {
	if len(d.Values) == 0 {
		return errors.New("choice: values must not be empty")
	}
	if d.Weights != nil && len(d.Weights) != len(d.Values) {
		return fmt.Errorf("choice: %d weights for %d values", len(d.Weights), len(d.Values))
	}
	var total float64
	for _, w := range d.Weights {
		if w < 0 {
			return fmt.Errorf("choice: weights must be >= 0, got %s", num(w))
		}
		total += w
	}
	if d.Weights != nil && total == 0 {
		return errors.New("choice: weights must not all be 0")
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// driftStream keeps the drift draw's generator apart from the per-request
// generators, which are seeded (Seed, seq) with seq ≥ 1: a drift seed equal
// to Seed must not draw the first request's jitter.
const driftStream = 0x64726966742d7369 // "drift-si"

// DriftFactor is the speed factor a simulator start draws for run-to-run
// drift: exp(sigma·Z) with Z standard normal from a generator seeded by
// seed, so the log of the factor has mean 0 and standard deviation sigma.
// A real server differs from one start to the next (clocks, placement,
// neighbours) by more than its requests differ within a run; every delay
// of a start is multiplied by its factor so a run against one start is
// uniformly faster or slower than against another. Sigma 0 gives 1.
func DriftFactor(sigma float64, seed int64) float64 {
	if sigma == 0 {
		return 1
	}
	z := rand.New(rand.NewPCG(uint64(seed), driftStream)).NormFloat64()
	return math.Exp(sigma * z)
}

// driftSeed is the seed a start draws its factor from: DriftSeed, or a
// fresh nonzero one when it is 0, which is the point of drift: every start
// differs. The seed is logged so a surprising start can be reproduced.
func (c Config) driftSeed() int64 {
	if c.DriftSeed != 0 {
		return c.DriftSeed
	}
	for {
		if s := rand.Int64(); s != 0 {
			return s
		}
	}
}

// scale multiplies a delay by the start's drift factor.
func scale(d time.Duration, factor float64) time.Duration {
	if factor == 1 || d <= 0 {
		return d
	}
	return time.Duration(float64(d) * factor)
}

// Wave is drift within a run: the server's speed varies over time, as a
// real server's does when a neighbour wakes up, a clock throttles or a
// cache warms, so two sequential runs of the same length see different
// speeds while interleaved A/B rounds see the same. Every delay made at
// time t after the start is multiplied by Factor(t).
type Wave struct {
	// Amplitude is the largest relative change of speed (0.10: delays
	// swing between 0.9 and 1.1 of their planned length).
	Amplitude float64
	// Period is the length of one full swing.
	Period time.Duration
}

// Factor is 1 + Amplitude·sin(2π·elapsed/Period): 1 at the start,
// slowest a quarter period in, fastest at three quarters. The zero Wave
// gives 1.
func (w Wave) Factor(elapsed time.Duration) float64 {
	if w.Amplitude == 0 || w.Period <= 0 {
		return 1
	}
	return 1 + w.Amplitude*math.Sin(2*math.Pi*float64(elapsed)/float64(w.Period))
}

// String writes w as ParseDrift reads it: "sine(10%, 1m0s)".
func (w Wave) String() string {
	return fmt.Sprintf("sine(%s%%, %s)", strconv.FormatFloat(w.Amplitude*100, 'g', -1, 64), w.Period)
}

// ParseDrift reads the drift knob as the scenario's sim(drift=) and
// `llmbench sim --drift` take it: a number, the σ of the per-start
// factor (DriftFactor), or "sine(AMPLITUDE, PERIOD)" ("sine(10%, 60s)";
// the amplitude also as 0.1), a Wave within the run. The other is left
// zero.
func ParseDrift(text string) (sigma float64, w Wave, err error) {
	text = strings.TrimSpace(text)
	args, ok := strings.CutPrefix(text, "sine(")
	if !ok {
		sigma, err = strconv.ParseFloat(text, 64)
		if err != nil {
			return 0, Wave{}, fmt.Errorf("drift %q: want a number (the σ of each start's speed factor, 0.05) or sine(AMPLITUDE, PERIOD) (sine(10%%, 60s))", text)
		}
		return sigma, Wave{}, nil
	}
	args, ok = strings.CutSuffix(args, ")")
	amp, period, two := strings.Cut(args, ",")
	if !ok || !two {
		return 0, Wave{}, fmt.Errorf("drift %q: want sine(AMPLITUDE, PERIOD), e.g. sine(10%%, 60s)", text)
	}
	amp, pct := strings.CutSuffix(strings.TrimSpace(amp), "%")
	if w.Amplitude, err = strconv.ParseFloat(amp, 64); err != nil {
		return 0, Wave{}, fmt.Errorf("drift %q: amplitude %q is not a number", text, amp)
	}
	if pct {
		w.Amplitude /= 100
	}
	if w.Period, err = time.ParseDuration(strings.TrimSpace(period)); err != nil {
		return 0, Wave{}, fmt.Errorf("drift %q: period: %w", text, err)
	}
	if !(w.Amplitude > 0 && w.Amplitude < 1) || w.Period <= 0 {
		return 0, Wave{}, fmt.Errorf("drift %q: want an amplitude in (0, 100%%) and a period > 0", text)
	}
	return 0, w, nil
}

package sim

import (
	"math"
	"math/rand/v2"
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

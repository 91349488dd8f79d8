package engine

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

// schedule yields the planned send offsets of an open loop, measured from
// the start of the run. Offsets are cumulative sums of seeded gaps, so the
// n-th request is due at the same instant whatever happened to the ones
// before it: a late request never shifts the rest (no drift), and the same
// seed gives the same schedule.
type schedule struct {
	rng   *rand.Rand
	load  plan.Load
	at    float64 // seconds since start of the next arrival
	count int
}

func newSchedule(l plan.Load, seed uint64) *schedule {
	return &schedule{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), load: l}
}

// next returns the offset of the next arrival.
func (s *schedule) next() time.Duration {
	if s.count > 0 || s.load.Arrival != plan.Constant {
		s.at += s.gap()
	}
	s.count++
	return time.Duration(rampTime(s.at, s.load.RampUp.Seconds()) * float64(time.Second))
}

// rampTime maps an arrival's offset u at the full rate (s) onto the
// instant it is due when the rate grows linearly from 0 to full over ramp
// seconds: the expected count by time t is rate·t²/(2·ramp) during the
// ramp and rate·(t − ramp/2) after it, so u (count/rate) is due at
// √(2·ramp·u) while u < ramp/2 and at u + ramp/2 after. The arrival
// process stays what it was (Poisson stays Poisson, its intensity
// ramping), and the schedule stays a pure function of the seed.
func rampTime(u, ramp float64) float64 {
	switch {
	case ramp <= 0:
		return u
	case u < ramp/2:
		return math.Sqrt(2 * ramp * u)
	}
	return u + ramp/2
}

// rampStart is when the i-th of n closed-loop workers (or users) starts
// under a ramp: spread evenly over it, the first at once, so the load
// grows step by step from 1 to n (AIPerf's --concurrency-ramp-duration).
func rampStart(i, n int, ramp time.Duration) time.Duration {
	if ramp <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(int64(ramp) * int64(i) / int64(n))
}

// gap draws one inter-arrival time in seconds with mean 1/rate. The first
// arrival of a constant schedule is at 0; random schedules start after one
// gap, like a process that was already running.
func (s *schedule) gap() float64 {
	r := s.load.Rate
	switch s.load.Arrival {
	case plan.Poisson:
		return s.rng.ExpFloat64() / r
	case plan.Gamma:
		k := s.load.Burstiness
		return gammaSample(s.rng, k) / (k * r)
	}
	return 1 / r
}

// gammaSample draws from Gamma(shape k, scale 1) by Marsaglia and Tsang's
// method, boosting shapes below 1 with the usual U^(1/k) trick.
func gammaSample(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gammaSample(rng, k+1) * math.Pow(rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

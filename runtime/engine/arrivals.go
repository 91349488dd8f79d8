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
	warp  *timeWarp // the load's profile; nil at full rate from the start
	at    float64   // seconds since start of the next arrival
	count int
}

func newSchedule(l plan.Load, seed uint64) *schedule {
	return &schedule{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), load: l, warp: newTimeWarp(l)}
}

// next returns the offset of the next arrival: drawn at the load's rate,
// then moved where its profile (ramp_up, stages) makes it due. Past the
// end of a stages() load it is the end, which ends the loop (end).
func (s *schedule) next() time.Duration {
	if s.count > 0 || s.load.Arrival != plan.Constant {
		s.at += s.gap()
	}
	s.count++
	if s.warp == nil {
		return time.Duration(s.at * float64(time.Second))
	}
	at := s.warp.at(s.at)
	if math.IsInf(at, 1) {
		return s.load.StagesDuration()
	}
	return time.Duration(at * float64(time.Second))
}

// end is the offset at which a stages() load's schedule ends (its last
// stage's end), or 0 when the stop condition ends it.
func (s *schedule) end() time.Duration {
	if !s.load.Staged() {
		return 0
	}
	return s.load.StagesDuration()
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

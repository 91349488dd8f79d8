package runtime

import (
	goruntime "runtime"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
)

// clientMeter measures the client's own CPU over a run, for the verdict
// whether the client, not the server, limited the load (SPEC §12).
type clientMeter struct {
	cpu0, cpu float64
	ok        bool
	start     time.Time
	wall      float64 // seconds from start to stop
}

func startClientMeter() clientMeter {
	cpu, ok := processCPU()
	return clientMeter{cpu0: cpu, ok: ok, start: time.Now()}
}

// stop ends the measurement when the load ends, so that what follows (the
// memory handed back, the summaries) is not counted as the load's.
func (m *clientMeter) stop() {
	m.wall = time.Since(m.start).Seconds()
	cpu, ok := processCPU()
	m.cpu, m.ok = cpu, ok && m.ok
}

// verdict judges the run from the CPU spent while the meter ran, what
// the summary says was achieved against the load's target and the
// arrivals dropped at the in-flight bound.
func (m clientMeter) verdict(job *Job, s *metrics.Summary, dropped int) *metrics.ClientVerdict {
	in := metrics.ClientInput{WallSeconds: m.wall, Cores: goruntime.GOMAXPROCS(0),
		SharedProcess: job.Endpoint.IsSim(), Summary: s, Dropped: dropped, InFlight: engine.InFlightBound(job.Point.Load)}
	if m.ok {
		in.CPUSeconds = m.cpu - m.cpu0
	} else {
		in.Cores = 0 // unknown: not judged
	}
	switch l := job.Point.Load; {
	case l.RampUp > 0 || l.Staged():
		// A ramp or stages hold the load below its target (their peak) on
		// purpose.
	case len(job.Sessions) > 0 && (!l.Closed() || thinks(job.Sessions)):
		// A rate of sessions is no rate of requests, users yield to slow
		// answers and a thinking session holds no request: neither a rate
		// nor an in-flight target is the client's to keep, so only its CPU
		// is judged.
	case l.Closed():
		in.TargetConcurrency = l.Concurrency
	default:
		in.TargetRate, in.MaxConcurrency = l.Rate, l.MaxConcurrency
	}
	v := metrics.JudgeClient(in)
	return &v
}

// thinks reports whether any session waits between its turns.
func thinks(sessions []dataset.Session) bool {
	for _, s := range sessions {
		for _, t := range s.Turns {
			if t.Think > 0 {
				return true
			}
		}
	}
	return false
}

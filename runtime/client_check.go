package runtime

import (
	goruntime "runtime"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// clientMeter measures the client's own CPU over a run, for the verdict
// whether the client, not the server, limited the load (SPEC §12).
type clientMeter struct {
	cpu0  float64
	ok    bool
	start time.Time
}

func startClientMeter() clientMeter {
	cpu, ok := processCPU()
	return clientMeter{cpu0: cpu, ok: ok, start: time.Now()}
}

// verdict judges the run from the CPU spent since the meter started and
// what the summary says was achieved against the load's target.
func (m clientMeter) verdict(job *Job, s *metrics.Summary) *metrics.ClientVerdict {
	in := metrics.ClientInput{WallSeconds: time.Since(m.start).Seconds(), Cores: goruntime.GOMAXPROCS(0),
		SharedProcess: job.Endpoint.IsSim(), Summary: s}
	if cpu, ok := processCPU(); ok && m.ok {
		in.CPUSeconds = cpu - m.cpu0
	} else {
		in.Cores = 0 // unknown: not judged
	}
	l := job.Point.Load
	if l.Closed() {
		in.TargetConcurrency = l.Concurrency
	} else {
		in.TargetRate, in.MaxConcurrency = l.Rate, l.MaxConcurrency
	}
	v := metrics.JudgeClient(in)
	return &v
}

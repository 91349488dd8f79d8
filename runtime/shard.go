package runtime

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// ParseShard reads "I/N" (0 <= I < N).
func ParseShard(text string) (engine.Shard, error) {
	i, n, ok := strings.Cut(text, "/")
	si, err1 := strconv.Atoi(strings.TrimSpace(i))
	sn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
		return engine.Shard{}, fmt.Errorf("got %q, want I/N with 0 <= I < N (shard I of N, as JOB_COMPLETION_INDEX counts)", text)
	}
	return engine.Shard{Index: si, Count: sn}, nil
}

// ShardFromEnv is the shard a batch system gives the process: Kubernetes'
// JOB_COMPLETION_INDEX (with the count from total, the Job's completions)
// or Slurm's SLURM_PROCID of SLURM_NTASKS; ok is false outside both.
func ShardFromEnv(total int) (engine.Shard, bool, error) {
	if i := os.Getenv("JOB_COMPLETION_INDEX"); i != "" && total > 0 {
		s, err := ParseShard(i + "/" + strconv.Itoa(total))
		return s, err == nil, err
	}
	if i, n := os.Getenv("SLURM_PROCID"), os.Getenv("SLURM_NTASKS"); i != "" && n != "" {
		s, err := ParseShard(i + "/" + n)
		return s, err == nil, err
	}
	return engine.Shard{}, false, nil
}

// Rendezvous makes every shard start a point at the same instant: Meet
// returns once all shards have arrived for the point, with the instant
// they all start at (SPEC §10: shard 0 serves it, the others call it).
type Rendezvous interface {
	Meet(ctx context.Context, point string) (time.Time, error)
}

// shardPoint applies the shard's segments to a point's counts: its share
// of the concurrency (of sessions under a conversation), of the users, of
// the request count and of the warm-up. An open loop and a replay keep the
// whole counts: their loops walk the whole schedule and send the arrivals
// the shard owns.
// A conversation point shares only its concurrency (of sessions) and its
// turn count: its sessions are numbered over the whole run, each shard
// taking every Count-th.
func shardPoint(p engine.Point, s engine.Shard, sessions bool) engine.Point {
	p.Shard = s
	switch {
	case !s.Sharded():
	case sessions && p.Load.Closed():
		p.Load.Concurrency = s.Share(p.Load.Concurrency)
	case p.Load.Closed() && !sessions:
		p.Load.Concurrency = s.Share(p.Load.Concurrency)
		p.Stop.Requests = s.Share(p.Stop.Requests)
		p.Warmup = s.Share(p.Warmup)
	}
	return p
}

// CheckShardable refuses what a sharded run cannot do (SPEC §10): points
// chosen from results (until_saturation, search, requests="auto"), the in-process
// simulator (each shard would start its own), a stages() load, an A/B
// experiment (its rounds alternate on one machine), and a closed loop smaller
// than the shard count (a shard would have no worker).
func CheckShardable(e *plan.Experiment, s engine.Shard) error {
	switch {
	case !s.Sharded():
		return nil
	case e.Adaptive():
		return fmt.Errorf("experiment %q: an adaptive sweep (until_saturation, search) decides from results and cannot run under --shard; use a grid sweep", e.Name)
	case e.AB != nil:
		return fmt.Errorf("experiment %q: an A/B experiment (ab=) alternates its two endpoints' rounds on one machine and cannot run under --shard", e.Name)
	case e.Steady != nil:
		return fmt.Errorf(`experiment %q: requests="auto" / duration="auto" stops each point on its measured confidence intervals, which no shard has alone; give a request count or a duration under --shard`, e.Name)
	case e.Load.Staged():
		return fmt.Errorf("experiment %q: a stages() load moves its target over time on one machine and cannot run under --shard; run it unsharded", e.Name)
	case e.Endpoint.IsSim():
		return fmt.Errorf("experiment %q: sim:// under --shard would start one simulator per shard; start one with `llmbench sim` and point every shard at it", e.Name)
	}
	specs, err := e.Points()
	if err != nil {
		return err
	}
	for _, p := range specs {
		spec := p.Load
		if spec.Closed() && !spec.Paced() && spec.Concurrency < s.Count {
			return fmt.Errorf("experiment %q: concurrency %d is below the %d shards: every shard needs at least one in flight", e.Name, spec.Concurrency, s.Count)
		}
		if spec.Paced() && spec.Users < s.Count {
			return fmt.Errorf("experiment %q: %d users are fewer than the %d shards", e.Name, spec.Users, s.Count)
		}
	}
	return nil
}

// ShardRun is one shard's run of a point: its place, the start all
// shards were given, and the instant its own clock started at — the
// spread of those over the shards is the start skew merge reports.
type ShardRun struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Planned and Started are Unix ns; Planned is 0 without a shared start.
	Planned int64 `json:"planned_start_ns,omitempty"`
	Started int64 `json:"started_ns"`
}

// ShardShare is one shard's part of a merged point: the requests it
// measured and when it started (Unix ns; Planned 0 without a shared
// start).
type ShardShare struct {
	Index    int   `json:"index"`
	Requests int   `json:"requests"`
	Planned  int64 `json:"planned_start_ns,omitempty"`
	Started  int64 `json:"started_ns"`
}

// StartSkew is the spread of the shards' start instants, each as its own
// clock saw it (clocks assumed NTP-synchronised): max − min, ns.
func StartSkew(shares []ShardShare) int64 {
	if len(shares) == 0 {
		return 0
	}
	lo, hi := shares[0].Started, shares[0].Started
	for _, s := range shares[1:] {
		lo, hi = min(lo, s.Started), max(hi, s.Started)
	}
	return hi - lo
}

// DescribeShards says how a merged point was measured, for people: "2
// shards, requests 12/12, start skew 1.264 ms".
func DescribeShards(shares []ShardShare) string {
	counts := make([]string, len(shares))
	for i, s := range shares {
		counts[i] = strconv.Itoa(s.Requests)
	}
	return fmt.Sprintf("%d shards, requests %s, start skew %.3f ms", len(shares), strings.Join(counts, "/"),
		float64(StartSkew(shares))/1e6)
}

// shardRun notes a sharded point's start: the instant the shards agreed
// on and the one this process began issuing at, on its own clock.
func shardRun(p engine.Point, started int64) *ShardRun {
	if !p.Shard.Sharded() {
		return nil
	}
	r := &ShardRun{Index: p.Shard.Index, Count: p.Shard.Count, Started: started}
	if !p.StartAt.IsZero() {
		r.Planned = p.StartAt.UnixNano()
	}
	return r
}

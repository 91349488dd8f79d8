package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/transport/rendezvous"
)

// shardFlags split a run over several processes (SPEC §10): each runs
// its shard of every point, all start each point at one instant, and
// `llmbench merge` judges the union.
type shardFlags struct {
	Shard          string        `help:"Run shard I of N (I/N, 0 <= I < N): its exact share of every point's concurrency, requests and warm-up, or every N-th arrival of an open loop. 'auto' takes Slurm's SLURM_PROCID/SLURM_NTASKS, or Kubernetes' JOB_COMPLETION_INDEX with --shards N. Gates and check() are judged by llmbench merge."`
	Shards         int           `help:"With --shard auto under Kubernetes: N, the Job's completions."`
	StartAt        string        `help:"Start the first point at this instant on every shard: RFC 3339 (2026-12-02T10:00:00Z) or Unix seconds (not milliseconds)."`
	Barrier        string        `help:"HOST:PORT of shard 0's barrier: every point starts on all shards at one instant once all arrived. Shard 0 listens on exactly this address (or --barrier-listen). In a Kubernetes Indexed Job: <job>-0.<service>:PORT."`
	BarrierListen  string        `placeholder:"HOST:PORT" help:"Where shard 0 listens, when not at --barrier's address (e.g. the pod's IP while the others use its DNS name); ':PORT' is every interface."`
	BarrierToken   string        `env:"LLMBENCH_BARRIER_TOKEN" placeholder:"TOKEN" help:"Secret shared by every shard (at least 16 printable characters, e.g. openssl rand -hex 32); shard 0 lets in only shards that send it. Needed unless the barrier is on a loopback address. Prefer the environment variable: a flag is visible to every user of the machine."`
	BarrierTimeout time.Duration `default:"10m" help:"How long a shard waits at the barrier for the others before giving the point up; also the furthest from now a start announced by shard 0 may lie."`
}

// maxShards is the most shards a run may have: Kubernetes' own limit on an
// Indexed Job's completions. It keeps every share's arithmetic (index ×
// count) far from overflowing.
const maxShards = 100_000

// plan reads the flags into the shard and its rendezvous; stop releases
// the barrier. Unsharded flags give the zero Shard.
func (f *shardFlags) plan() (engine.Shard, runtime.Rendezvous, func(), error) {
	none := func() {}
	if f.BarrierTimeout <= 0 {
		return engine.Shard{}, nil, none, invalid("--barrier-timeout %s: want a positive duration", f.BarrierTimeout)
	}
	if f.Shard == "" {
		if f.StartAt != "" || f.Barrier != "" || f.BarrierListen != "" {
			return engine.Shard{}, nil, none, invalid("--start-at and --barrier need --shard I/N")
		}
		return engine.Shard{}, nil, none, nil
	}
	s, err := f.shard()
	if err != nil {
		return s, nil, none, err
	}
	opts := rendezvous.Options{Timeout: f.BarrierTimeout, Token: strings.TrimSpace(f.BarrierToken)}
	if f.StartAt != "" {
		if opts.StartAt, err = parseInstant(f.StartAt); err != nil {
			return s, nil, none, invalid("--start-at: %w", err)
		}
	}
	switch {
	case f.Barrier == "" && f.BarrierListen != "":
		return s, nil, none, invalid("--barrier-listen needs --barrier HOST:PORT, where the other shards reach shard 0")
	case f.Barrier == "" && f.StartAt == "":
		return s, nil, none, invalid("--shard %s needs --barrier HOST:PORT (every point starts together) or --start-at (a one-point run)", s)
	case f.Barrier == "":
		return s, &rendezvous.FixedStart{At: opts.StartAt}, none, nil
	case s.Index == 0:
		listen := cmp.Or(f.BarrierListen, f.Barrier)
		b, err := rendezvous.Serve(listen, s.Count, opts)
		if err != nil {
			return s, nil, none, invalid("--barrier: %w", err)
		}
		return s, b, func() { _ = b.Close() }, nil
	}
	b, err := rendezvous.Dial(f.Barrier, s.Index, s.Count, opts)
	if err != nil {
		return s, nil, none, invalid("--barrier: %w", err)
	}
	return s, b, none, nil
}

func (f *shardFlags) shard() (engine.Shard, error) {
	if f.Shard != "auto" {
		s, err := parseShard(f.Shard)
		if err != nil {
			return s, invalid("--shard: %w", err)
		}
		return s, nil
	}
	s, ok, err := runtime.ShardFromEnv(f.Shards)
	switch {
	case err != nil:
		return s, invalid("--shard auto: %w", err)
	case !ok:
		return s, invalid("--shard auto: neither SLURM_PROCID/SLURM_NTASKS nor JOB_COMPLETION_INDEX with --shards N is set")
	case s.Count > maxShards:
		return s, invalid("--shard auto: %d shards, at most %d", s.Count, maxShards)
	}
	return s, nil
}

// parseShard reads "I/N" with at most maxShards shards.
func parseShard(text string) (engine.Shard, error) {
	s, err := runtime.ParseShard(text)
	if err == nil && s.Count > maxShards {
		return engine.Shard{}, fmt.Errorf("got %q: %d shards, at most %d", text, s.Count, maxShards)
	}
	return s, err
}

// latestInstant is the last instant a time.Time holds as Unix
// nanoseconds (2262-04-11), which is how the start travels between shards.
var latestInstant = time.Unix(0, math.MaxInt64)

// parseInstant reads RFC 3339 or Unix seconds (fractions allowed), after
// 1970 and no later than 2262 (a start travels as Unix nanoseconds). A
// number that is only a date far in the future read as seconds —
// milliseconds or microseconds — is refused with that hint.
func parseInstant(text string) (time.Time, error) {
	const want = "want RFC 3339 (2026-12-02T10:00:00Z) or Unix seconds"
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		secs, perr := strconv.ParseFloat(strings.TrimSpace(text), 64)
		switch {
		case perr != nil || math.IsNaN(secs) || math.IsInf(secs, 0):
			return time.Time{}, fmt.Errorf("got %q, %s", text, want)
		case secs > float64(latestInstant.Unix()):
			return time.Time{}, fmt.Errorf("got %q, past the year 2262 as Unix seconds (milliseconds? divide by 1000); %s", text, want)
		}
		t = time.Unix(0, int64(secs*1e9))
	}
	if !t.After(time.Unix(0, 0)) || t.After(latestInstant) {
		return time.Time{}, fmt.Errorf("got %q: want an instant after 1970 and before 2262-04-11", text)
	}
	return t, nil
}

// checkShardable refuses what a sharded run cannot do with any of the
// scenario's experiments.
func checkShardable(scen *runtime.Scenario, s engine.Shard) error {
	if !s.Sharded() {
		return nil
	}
	for i := range scen.Experiments {
		if err := runtime.CheckShardable(&scen.Experiments[i], s); err != nil {
			return invalid("--shard %s: %w", s, err)
		}
	}
	return nil
}

// finishShard writes a shard's files without judging them: its gates
// measured a share of each point, so they are left for llmbench merge,
// and the shard exits 0 unless the run itself failed.
func (c *runCmd) finishShard(e *env, scen *runtime.Scenario, results []runtime.ExperimentResult, runErr error, s engine.Shard) error {
	for i := range results {
		for j := range results[i].Points {
			results[i].Points[j].Gates = nil
		}
	}
	rep := &verdict.Report{Scenario: scenarioName(scen), Check: verdict.CheckNotRun,
		Partial: errors.Is(runErr, errInterrupted) || overBudget(runErr)}
	if err := c.writeVerdicts(e, scen, results, rep, nil); err != nil {
		return runFailed("writing results: %w", err)
	}
	fmt.Fprintf(e.stdout, "Shard %s: gates and check() are judged over every shard by llmbench merge\n", s)
	return runErr
}

package runtime

import (
	"context"

	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/transport/telemetry"
)

// resetPrefixCaches empties the prefix cache of every replica before a
// run sends anything (its warm-up included), when the endpoint asks for
// it (plan.Endpoint.ResetPrefixCache): every run of every point then
// starts from the same empty cache, as `vllm bench` sweeps reset between
// runs, and its hit share measures its own prompts only.
//
// A reset that fails stops the run with an error naming the endpoint and
// what it answered, before the point sends a request: the user asked for
// runs free of an earlier run's cache, and a run measured on a warm
// cache is the result they asked not to get. Points measured before are
// kept. In a sharded run only shard 0 resets, once, so one shard's reset
// never lands while another's requests run.
func resetPrefixCaches(ctx context.Context, job *Job, bases []string) error {
	if !job.Endpoint.ResetPrefixCache || job.Point.Shard.Index > 0 {
		return nil
	}
	for _, base := range bases {
		if err := telemetry.ResetPrefixCache(ctx, base); err != nil {
			return failure.New(failure.Run, err)
		}
	}
	return nil
}

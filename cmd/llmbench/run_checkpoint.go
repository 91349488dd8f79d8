package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// runCheckpoint is a scenario run's OUT/checkpoint.json: every run of a
// point that ended normally, so `run --resume` after an interrupt measures
// only what is missing — the same mechanism as `analyze --resume`.
type runCheckpoint struct {
	cp       *runtime.Checkpoint
	path     string
	resuming bool
}

// openRunCheckpoint loads OUT/checkpoint.json when resuming; a fresh run
// starts an empty one, replacing the old file as its first run finishes.
func openRunCheckpoint(out string, resume bool) (*runCheckpoint, error) {
	c := &runCheckpoint{path: filepath.Join(out, "checkpoint.json"), resuming: resume,
		cp: &runtime.Checkpoint{Version: runtime.CheckpointVersion}}
	if !resume {
		return c, nil
	}
	cp, found, err := runtime.LoadCheckpoint(c.path)
	if err != nil {
		return nil, invalid("--resume: %w", err)
	}
	if !found {
		log.Info().Str("checkpoint", c.path).Msg("no checkpoint yet: measuring every point")
	}
	c.cp = cp
	return c, nil
}

// identity is what makes a run of a point the same run again: the
// experiment as planned (its saved plan, which holds no secrets), the
// point and the repeat. Anything changed in the scenario that changes
// what is measured measures the point again.
func identity(scenario string, exp *runtime.Experiment, key runtime.PointKey) ([]byte, error) {
	rec := runtime.RecordOf(scenario, exp, key, 0, records.StripCredentials)
	return json.Marshal(struct {
		Plan   runtime.PlanRecord `json:"plan"`
		Params runtime.Params     `json:"params"`
		Repeat int                `json:"repeat"`
	}{rec.Plan, key.Params, key.Repeat})
}

// finished is the outcome of a run the checkpoint holds, when resuming.
func (c *runCheckpoint) finished(config []byte) (*runtime.Outcome, bool) {
	if c == nil || !c.resuming {
		return nil, false
	}
	p, ok := c.cp.Find(config)
	if !ok {
		return nil, false
	}
	return p.Result().Outcome, true
}

// save checkpoints a run that ended normally.
func (c *runCheckpoint) save(config []byte, key runtime.PointKey, dir string, out *runtime.Outcome) error {
	if c == nil || out.Interrupted {
		return nil
	}
	c.cp.Add(runtime.CheckpointOf(config, c.cp.NextID(), key.String(), dir, key.Params, out))
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	if err := c.cp.Save(c.path); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	return nil
}

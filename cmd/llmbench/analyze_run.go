package main

import (
	"os"
	"strconv"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/runtime"
)

// checkpointing is an analyze sweep's checkpoint while it runs: the file
// it resumes from and extends after every finished point, and the
// checkpoint ID of each point finished or restored (GenAI-Perf names a
// point "<model>_run_config_<id>").
type checkpointing struct {
	cp       *runtime.Checkpoint
	path     string
	resuming bool
	model    string
	// ids are the checkpoint IDs of the points that ended normally, by
	// label; an interrupted point or one whose server vanished has none.
	ids map[string]int
}

// openCheckpoint loads the checkpoint when resuming. A fresh sweep starts
// an empty one, replacing any old file as its first point finishes, so a
// checkpoint always describes one sweep's points; the old file is named in
// a warning because --resume may have been forgotten.
func (c *analyzeCmd) openCheckpoint() (*checkpointing, error) {
	cp := &checkpointing{path: c.checkpointPath(), resuming: c.resuming(), model: c.Model[0], ids: map[string]int{},
		cp: &runtime.Checkpoint{Version: runtime.CheckpointVersion}}
	if !cp.resuming {
		if _, err := os.Stat(cp.path); err == nil {
			log.Warn().Str("checkpoint", cp.path).Msg("starting afresh; its finished points will be replaced (pass --resume to skip them)")
		}
		return cp, nil
	}
	loaded, found, err := runtime.LoadCheckpoint(cp.path)
	if err != nil {
		return nil, invalid("%w", err)
	}
	if !found {
		log.Info().Str("checkpoint", cp.path).Msg("no checkpoint yet: measuring every point")
	}
	cp.cp = loaded
	return cp, nil
}

// find is the finished point of this identity.
func (c *checkpointing) find(config []byte) (runtime.CheckpointPoint, bool) { return c.cp.Find(config) }

// restored notes that a point was taken from the checkpoint.
func (c *checkpointing) restored(label string, id int) { c.ids[label] = id }

// save checkpoints a point that ended normally, under the next ID.
func (c *checkpointing) save(pt *gpPoint, p *runtime.PointResult) error {
	id := c.cp.NextID()
	c.ids[pt.label] = id
	c.cp.Add(runtime.CheckpointOf(pt.config, id, pt.label, pt.run.Dir(), p.Params, p.Outcome))
	if err := c.cp.Save(c.path); err != nil {
		return runFailed("writing checkpoint: %w", err)
	}
	return nil
}

// configName is GenAI-Perf's name of the point with this ID.
func (c *checkpointing) configName(id int) string { return c.model + "_run_config_" + strconv.Itoa(id) }

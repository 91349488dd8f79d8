package artifacts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// CheckpointFile is the checkpoint's name in its folder.
const CheckpointFile = "checkpoint.json"

// loadCheckpoint reads the checkpoint at path when resuming, an empty one
// otherwise (a fresh run replaces the old file as its first run ends).
func loadCheckpoint(path string, resume bool) (*runtime.Checkpoint, error) {
	if !resume {
		return &runtime.Checkpoint{Version: runtime.CheckpointVersion}, nil
	}
	cp, found, err := runtime.LoadCheckpoint(path)
	if err != nil {
		return nil, failure.Inputf("resuming from %s: %w", path, err)
	}
	if !found {
		log.Info().Str("checkpoint", path).Msg("no checkpoint yet: measuring every point")
	}
	return cp, nil
}

// RunCheckpoint is a scenario run's OUT/checkpoint.json: every run of a
// point that ended normally, so `run --resume` after an interrupt measures
// only what is missing — the same mechanism as `analyze --resume`.
type RunCheckpoint struct {
	cp       *runtime.Checkpoint
	path     string
	resuming bool
}

// OpenRunCheckpoint loads OUT/checkpoint.json when resuming.
func OpenRunCheckpoint(out string, resume bool) (*RunCheckpoint, error) {
	path := filepath.Join(out, CheckpointFile)
	cp, err := loadCheckpoint(path, resume)
	if err != nil {
		return nil, err
	}
	return &RunCheckpoint{cp: cp, path: path, resuming: resume}, nil
}

// finished is the outcome of a run the checkpoint holds, when resuming.
func (c *RunCheckpoint) finished(exp *plan.Experiment, key runtime.PointKey, side string) (*runtime.Outcome, bool) {
	if c == nil || !c.resuming {
		return nil, false
	}
	config, err := checkpointIdentity(exp, key, side)
	if err != nil {
		return nil, false
	}
	p, ok := c.cp.Find(config)
	if !ok {
		return nil, false
	}
	out := p.Result().Outcome
	if out.Telemetry, err = storedrun.ReadTelemetry(p.Dir, &out.Summary, exp.CostPerHour, exp.Currency); err != nil {
		return nil, false // measure it again rather than lose its telemetry
	}
	if track := exp.BaselineTrack(); len(track) > 0 {
		if out.Series, err = storedrun.Series(filepath.Join(p.Dir, storedrun.RecordsFile), track); err != nil {
			return nil, false // measure it again rather than judge it blind
		}
	}
	return out, true
}

// save checkpoints a run that ended normally.
func (c *RunCheckpoint) save(exp *plan.Experiment, key runtime.PointKey, side string, dir string, out *runtime.Outcome) error {
	if c == nil || out.Interrupted {
		return nil
	}
	config, err := checkpointIdentity(exp, key, side)
	if err != nil {
		return err
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

// checkpointIdentity is what a run is found by in the checkpoint
// (runtime.CheckpointIdentity), and for a round of an A/B point its side
// too: the two sides of an A/A run have one plan and one server.
func checkpointIdentity(exp *plan.Experiment, key runtime.PointKey, side string) ([]byte, error) {
	config, err := runtime.CheckpointIdentity(exp, key)
	if err != nil || side == "" {
		return config, err
	}
	var id map[string]string
	if err := json.Unmarshal(config, &id); err != nil {
		return nil, err
	}
	id["side"] = side
	return json.Marshal(id)
}

// SweepCheckpoint is an analyze sweep's checkpoint (GenAI-Perf's
// <checkpoint-dir>/checkpoint.json): the file it resumes from and extends
// after every finished point, and the checkpoint ID of each point finished
// or restored (GenAI-Perf names a point "<model>_run_config_<id>").
type SweepCheckpoint struct {
	cp       *runtime.Checkpoint
	path     string
	resuming bool
	model    string
	// ids are the checkpoint IDs of the points that ended normally, by
	// label; an interrupted point or one whose server vanished has none.
	ids map[string]int
}

// OpenSweepCheckpoint loads the checkpoint at path when resuming. A fresh
// sweep starts an empty one, replacing any old file as its first point
// finishes, so a checkpoint always describes one sweep's points; the old
// file is named in a warning because --resume may have been forgotten.
//
// apiKey says whether --api-key was given. The key itself is never
// stored, only that there was one, so a resume of a sweep measured with a
// key needs it again: without it the remaining points would be measured
// unauthenticated, all errors, and that is refused before any traffic.
func OpenSweepCheckpoint(path, model string, resume, apiKey bool) (*SweepCheckpoint, error) {
	if _, err := os.Stat(path); err == nil && !resume {
		log.Warn().Str("checkpoint", path).Msg("starting afresh; its finished points will be replaced (pass --resume to skip them)")
	}
	cp, err := loadCheckpoint(path, resume)
	if err != nil {
		return nil, err
	}
	// An older llmbench kept the key in every point's config: forget it,
	// so the file is rewritten without it and its points still match.
	if cp.ForgetConfigField(apiKeyField) {
		cp.APIKeyGiven = true
	}
	if cp.APIKeyGiven && !apiKey {
		return nil, failure.Inputf("resuming from %s: its points were measured with --api-key, which is never stored: give --api-key again", path)
	}
	cp.APIKeyGiven = apiKey
	return &SweepCheckpoint{cp: cp, path: path, resuming: resume, model: model, ids: map[string]int{}}, nil
}

// apiKeyField is the profile flag --api-key's name in a point's config,
// where an older llmbench wrote the key.
const apiKeyField = "APIKey"

// find is the finished point of this identity, when resuming.
func (c *SweepCheckpoint) find(config []byte) (runtime.CheckpointPoint, bool) {
	if c == nil || !c.resuming {
		return runtime.CheckpointPoint{}, false
	}
	return c.cp.Find(config)
}

// save checkpoints a point that ended normally, under the next ID.
func (c *SweepCheckpoint) save(pt *GenAIPerfPoint, p *runtime.PointResult) error {
	if c == nil {
		return nil
	}
	id := c.cp.NextID()
	c.ids[pt.Label] = id
	c.cp.Add(runtime.CheckpointOf(pt.Config, id, pt.Label, pt.Run.Dir(), p.Params, p.Outcome))
	if err := c.cp.Save(c.path); err != nil {
		return failure.Runf("writing checkpoint: %w", err)
	}
	return nil
}

// ID is the checkpoint ID of a finished point, by label.
func (c *SweepCheckpoint) ID(label string) (int, bool) {
	id, ok := c.ids[label]
	return id, ok
}

// Points is how many points the checkpoint holds.
func (c *SweepCheckpoint) Points() int { return len(c.cp.Points) }

// Path is the checkpoint file.
func (c *SweepCheckpoint) Path() string { return c.path }

// ConfigName is GenAI-Perf's name of the point with this ID.
func (c *SweepCheckpoint) ConfigName(id int) string {
	return c.model + "_run_config_" + strconv.Itoa(id)
}

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// CheckpointVersion is the format version written to checkpoint.json. A
// file of another version is refused rather than half-read: resuming from
// a misread checkpoint would silently report the wrong numbers.
const CheckpointVersion = 1

// Checkpoint records the finished points of a sweep, one entry written as
// each point ends, so a sweep interrupted by Ctrl-C, a crash or a lost CI
// runner resumes where it stopped instead of measuring everything again.
// It holds each point's reduced metrics rather than a pointer to its
// artifacts, so the final reports of a resumed sweep are computed from the
// same numbers an uninterrupted sweep would have used, even if artifact
// folders were moved.
type Checkpoint struct {
	Version int `json:"version"`
	// APIKeyGiven marks that the points were measured with an API key,
	// whose value is never stored (secrets never reach an artifact, SPEC
	// §11): a resume must be given the key again rather than measure the
	// remaining points unauthenticated.
	APIKeyGiven bool              `json:"api_key_given,omitempty"`
	Points      []CheckpointPoint `json:"points"`
}

// CheckpointPoint is one finished point.
type CheckpointPoint struct {
	// Config identifies the point: a JSON object of everything that
	// decides what is measured (the swept value and every relevant flag),
	// without what may change between an interrupted run and its resume
	// (the server URL, output paths). A point is skipped on resume when
	// its config is equal, compared as compact JSON.
	Config json.RawMessage `json:"config"`
	// ID numbers points in the order they were first measured; it is
	// stable across resumes, so names built from it (GenAI-Perf's
	// "<model>_run_config_<id>") do not change.
	ID int `json:"id"`
	// Label names the point ("concurrency8") and Dir is the artifact
	// folder it was written to.
	Label  string      `json:"label"`
	Dir    string      `json:"dir,omitempty"`
	Params plan.Params `json:"params"`
	// TokenCounting is how ISL and OSL were counted.
	TokenCounting CountMode `json:"token_counting"`
	Fallbacks     int       `json:"token_counting_fallbacks,omitempty"`
	// Summary is every metric of the point, in native units (ns for
	// times). Distributions keep their fixed statistics, not their values.
	Summary metrics.Summary `json:"summary"`
	// Components are the per-component summaries of a mix (a field added
	// within version 1: older files simply have none).
	Components []ComponentSummary `json:"components,omitempty"`
	// Steady is what an auto point's steady-state rule did (added within
	// version 1: older files and fixed-stop points have none).
	Steady *SteadyOutcome `json:"steady_state,omitempty"`
	// Replicas are the per-replica summaries of an endpoint with several
	// URLs (added within version 1 too).
	Replicas []ReplicaSummary `json:"replicas,omitempty"`
	// Stages are the per-stage summaries of a stages() load (added
	// within version 1 too).
	Stages []StageSummary `json:"stages,omitempty"`
}

// LoadCheckpoint reads a checkpoint; a missing file is an empty
// checkpoint (found is false), since the first run of a sweep has none.
func LoadCheckpoint(path string) (cp *Checkpoint, found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Checkpoint{Version: CheckpointVersion}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	cp = &Checkpoint{}
	if err := json.Unmarshal(b, cp); err != nil {
		return nil, true, fmt.Errorf("checkpoint %s is corrupt (%v): delete it to start the sweep afresh", path, err)
	}
	if cp.Version != CheckpointVersion {
		return nil, true, fmt.Errorf("checkpoint %s has format version %d, this llmbench reads %d: delete it to start afresh",
			path, cp.Version, CheckpointVersion)
	}
	return cp, true, nil
}

// Find returns the finished point with this config.
func (c *Checkpoint) Find(config []byte) (CheckpointPoint, bool) {
	want, err := compactJSON(config)
	if err != nil {
		return CheckpointPoint{}, false
	}
	for _, p := range c.Points {
		if got, err := compactJSON(p.Config); err == nil && bytes.Equal(got, want) {
			return p, true
		}
	}
	return CheckpointPoint{}, false
}

// ForgetConfigField removes the member name from every point's config,
// reporting whether any held a value other than "", false or null: how a
// checkpoint written by an older llmbench, which kept a secret in its
// configs, is cleaned before it is written again.
func (c *Checkpoint) ForgetConfigField(name string) (hadValue bool) {
	for i := range c.Points {
		var m map[string]json.RawMessage
		if json.Unmarshal(c.Points[i].Config, &m) != nil {
			continue
		}
		v, ok := m[name]
		if !ok {
			continue
		}
		switch string(v) {
		case `""`, "false", "null":
		default:
			hadValue = true
		}
		delete(m, name)
		if b, err := json.Marshal(m); err == nil {
			c.Points[i].Config = b
		}
	}
	return hadValue
}

// NextID is the ID for a point not in the checkpoint: one more than the
// highest so far, 0 for the first.
func (c *Checkpoint) NextID() int {
	next := 0
	for _, p := range c.Points {
		next = max(next, p.ID+1)
	}
	return next
}

// Add records a finished point, replacing one with the same config.
func (c *Checkpoint) Add(p CheckpointPoint) {
	for i := range c.Points {
		if a, err := compactJSON(c.Points[i].Config); err == nil {
			if b, err := compactJSON(p.Config); err == nil && bytes.Equal(a, b) {
				c.Points[i] = p
				return
			}
		}
	}
	c.Points = append(c.Points, p)
}

// Save writes the checkpoint atomically (a temporary file renamed over the
// old one), so an interrupt while saving leaves the previous checkpoint
// rather than a truncated one.
func (c *Checkpoint) Save(path string) error {
	c.Version = CheckpointVersion
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".checkpoint-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckpointOf records one measured run of a point under its config, ID
// and label.
func CheckpointOf(config []byte, id int, label, dir string, params plan.Params, out *Outcome) CheckpointPoint {
	return CheckpointPoint{
		Config: bytes.Clone(config), ID: id, Label: label, Dir: dir, Params: params,
		TokenCounting: out.Counting.Mode, Fallbacks: out.Counting.Fallbacks,
		Summary: out.Summary, Components: out.Components, Steady: out.Steady, Replicas: out.Replicas,
		Stages: out.Stages,
	}
}

// Result rebuilds the point's result from the checkpoint: its summary and
// how tokens were counted, without records (they are in its artifacts).
// Gates are not restored; the caller evaluates them again, as they may
// have changed since.
func (p CheckpointPoint) Result() PointResult {
	out := &Outcome{
		Counting:   Counting{Mode: p.TokenCounting, Fallbacks: p.Fallbacks},
		Summary:    p.Summary,
		Components: p.Components,
		Steady:     p.Steady,
		Replicas:   p.Replicas,
		Stages:     p.Stages,
	}
	return PointResult{Params: p.Params, Outcome: out, Repeats: []*Outcome{out}}
}

func compactJSON(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// PointRecordVersion is the layout version of PointRecord's JSON. It goes
// up when a reader of the old layout would misread the new one; fields
// may be added without a change. Version 2 stores the plan as
// plan.Experiment's JSON; version 1 stored a mirror of it (pointrecord_v1.go
// reads it).
const PointRecordVersion = 2

// PointRecord is the saved plan of one run of one point: the experiment as
// it was planned (the plan's own JSON: its sweep, gates as written,
// goodput), token counting,
// the point's key and its place in run order, and how it ended. It is
// stored with the point's records, so a stored run can be read back into
// the same ExperimentResult the run produced (report, compare, merge)
// without guessing from labels or display strings.
type PointRecord struct {
	Version int `json:"version"`
	// Scenario is the scenario file's name without extension ("" for
	// profile and analyze).
	Scenario string          `json:"scenario,omitempty"`
	Plan     plan.Experiment `json:"plan"`
	Point    PointRef        `json:"point"`
	Counting Counting        `json:"token_counting"`
	// Partial marks a run interrupted before its stop condition.
	Partial bool `json:"partial,omitempty"`
	// Client is the verdict whether the client limited the run: measured
	// (its CPU) while it ran, so kept for a rebuild.
	Client *metrics.ClientVerdict `json:"client,omitempty"`
	// Shard is the shard that measured this run and when it started, for
	// merge; nil for an unsharded run.
	Shard *ShardRun `json:"shard,omitempty"`
	// Steady is what an auto point's steady-state rule did; nil for a
	// point with a fixed stop.
	Steady *SteadyOutcome `json:"steady_state,omitempty"`
	// Shards is, for a point merged from shards, each shard's share and
	// start, by shard index.
	Shards []ShardShare `json:"shards,omitempty"`
	// StagesFrom is when a stages() point's first stage started (ns, the
	// records' clock), so its records are staged as the run staged them.
	StagesFrom int64 `json:"stages_from,omitempty"`
}

// PointRef is a point's key within its experiment and its place in the
// order the experiment ran its points (an adaptive sweep's decisions are
// replayed in that order).
type PointRef struct {
	Params plan.Params `json:"params"`
	Repeat int         `json:"repeat"`
	Index  int         `json:"index"`
}

// RecordOf is the saved plan of run key of e's point number index. The
// plan's JSON holds no credential: URLs are redacted, headers and body
// extras are never stored.
func RecordOf(scenario string, e *plan.Experiment, key PointKey, index int) PointRecord {
	p := *e
	p.Repeats = max(e.Repeats, 1)
	return PointRecord{Version: PointRecordVersion, Scenario: scenario, Plan: p,
		Point: PointRef{Params: key.Params, Repeat: key.Repeat, Index: index}}
}

// Encode is the record as stored: compact JSON in the current layout,
// whatever version it was read from.
func (r PointRecord) Encode() (string, error) {
	r.Version = PointRecordVersion
	b, err := json.Marshal(r)
	return string(b), err
}

// DecodePointRecord reads a stored record of any version, refusing a
// layout newer than this version reads.
func DecodePointRecord(s string) (PointRecord, error) {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return PointRecord{}, fmt.Errorf("point record: %w", err)
	}
	switch {
	case v.Version == 1:
		return decodePointRecordV1(s)
	case v.Version < 1 || v.Version > PointRecordVersion:
		return PointRecord{}, fmt.Errorf("point record: version %d, this llmbench reads 1 to %d", v.Version, PointRecordVersion)
	}
	var r PointRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("point record: %w", err)
	}
	return r, nil
}

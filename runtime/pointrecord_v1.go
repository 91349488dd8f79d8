package runtime

// The point record of version 1 (records written before the stored plan
// was the plan's own JSON, schema versions 2 to 5): its plan was a
// hand-kept mirror of the experiment, read here into a plan.Experiment.
// Its endpoint, load and goodput layouts are also what a checkpoint's
// identity hashes (CheckpointIdentity), so they stay, frozen: a run
// checkpointed before resumes.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

// decodePointRecordV1 reads a version 1 record into the current layout.
// Its plan had the keys of plan.Experiment's JSON but for the load
// ("traffic", its ramp-up in ms) and the duration (in ms), which are read
// here; every other field goes through the plan's own reader.
func decodePointRecordV1(s string) (PointRecord, error) {
	var rec PointRecord
	var v1 struct {
		Plan struct {
			Traffic    loadV1 `json:"traffic"`
			DurationMS int64  `json:"duration_ms"`
		} `json:"plan"`
	}
	for _, into := range []any{&rec, &v1} {
		if err := json.Unmarshal([]byte(s), into); err != nil {
			return PointRecord{}, fmt.Errorf("point record: %w", err)
		}
	}
	rec.Version = PointRecordVersion // read into the current layout
	rec.Plan.Load = v1.Plan.Traffic.load()
	rec.Plan.Duration = time.Duration(v1.Plan.DurationMS) * time.Millisecond
	return rec, nil
}

// endpointV1 is an Endpoint without headers.
type endpointV1 struct {
	URL    string   `json:"url"`
	Path   string   `json:"path,omitempty"`
	API    string   `json:"api"`
	Stream bool     `json:"stream"`
	Model  string   `json:"model"`
	Models []string `json:"models,omitempty"`
	// URLs and URLSelection are an endpoint's replicas, credentials
	// removed, when it has two or more.
	URLs           []string `json:"urls,omitempty"`
	URLSelection   string   `json:"url_selection,omitempty"`
	ModelSelection string   `json:"model_selection,omitempty"`
	Tokenizer      string   `json:"tokenizer,omitempty"`
	TokenCount     string   `json:"token_count,omitempty"`
}

// loadV1 is a Load.
type loadV1 struct {
	Concurrency    int     `json:"concurrency,omitempty"`
	Rate           float64 `json:"rate,omitempty"`
	Arrival        string  `json:"arrival,omitempty"`
	Burstiness     float64 `json:"burstiness,omitempty"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
	ReplaySpeed    float64 `json:"replay_speed,omitempty"`
	Users          int     `json:"users,omitempty"`
	RampUpMS       int64   `json:"ramp_up_ms,omitempty"`
}

// sloV1 is a goodput SLO.
type sloV1 struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

func (l loadV1) load() plan.Load {
	return plan.Load{Concurrency: l.Concurrency, Rate: l.Rate, Arrival: plan.Arrival(l.Arrival), Burstiness: l.Burstiness,
		MaxConcurrency: l.MaxConcurrency, ReplaySpeed: l.ReplaySpeed, Users: l.Users,
		RampUp: time.Duration(l.RampUpMS) * time.Millisecond}
}

func loadRecord(l plan.Load) loadV1 {
	return loadV1{Concurrency: l.Concurrency, Rate: l.Rate, Arrival: string(l.Arrival), Burstiness: l.Burstiness,
		MaxConcurrency: l.MaxConcurrency, ReplaySpeed: l.ReplaySpeed, Users: l.Users, RampUpMS: l.RampUp.Milliseconds()}
}

// checkpointIdentity is everything that decides what a run of a point
// measures, and nothing else: gates, tags, baseline and cost only judge
// what was measured, so editing them measures nothing again. Its layout is
// frozen (checkpoints store its digest): a field added to the plan that
// changes what is measured needs a new checkpoint version, not a new
// field here.
type checkpointIdentity struct {
	Endpoint          endpointV1 `json:"endpoint"`
	Extra             []string   `json:"extra,omitempty"`
	Timeout           string     `json:"timeout"`
	IdleTimeout       string     `json:"idle_timeout"`
	Insecure          bool       `json:"insecure,omitempty"`
	MaxResponseSize   int64      `json:"max_response_size,omitempty"`
	MaxSSELineSize    int64      `json:"max_sse_line_size,omitempty"`
	TokenizerRevision string     `json:"tokenizer_revision,omitempty"`
	// Dataset is the source with every field (seed, entries, lengths...),
	// not only its scenario notation.
	Dataset  string      `json:"dataset"`
	Traffic  loadV1      `json:"traffic"`
	Requests int         `json:"requests"`
	Duration string      `json:"duration"`
	Warmup   int         `json:"warmup"`
	Seed     uint64      `json:"seed"`
	Goodput  []sloV1     `json:"goodput,omitempty"`
	Params   plan.Params `json:"params"`
	Repeat   int         `json:"repeat"`
}

// CheckpointIdentity is what makes a run of e's point key the same run
// again, as a digest (so the checkpoint holds none of the values, body
// extras included): anything changed in the plan that changes what is
// measured measures the point again.
func CheckpointIdentity(e *plan.Experiment, key PointKey) ([]byte, error) {
	ep := e.Endpoint
	id := checkpointIdentity{Endpoint: endpointV1Of(ep), Timeout: ep.Timeout.String(), IdleTimeout: ep.IdleTimeout.String(),
		Insecure: ep.Insecure, MaxResponseSize: ep.MaxResponseSize, MaxSSELineSize: ep.MaxSSELineSize, TokenizerRevision: ep.TokenizerRevision,
		Dataset: fmt.Sprintf("%#v", e.Dataset), Traffic: loadRecord(e.Load), Requests: e.Requests, Duration: e.Duration.String(),
		Warmup: e.Warmup, Seed: e.Seed, Params: key.Params, Repeat: key.Repeat}
	for _, slo := range e.Goodput {
		id.Goodput = append(id.Goodput, sloV1{Metric: string(slo.Metric), Value: slo.Value})
	}
	for _, f := range ep.Extra {
		id.Extra = append(id.Extra, f.Key+"="+string(f.Value))
	}
	b, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"sha256": fmt.Sprintf("%x", sha256.Sum256(b))})
}

// endpointV1Of is ep as version 1 stored it, credentials removed.
func endpointV1Of(ep plan.Endpoint) endpointV1 {
	r := endpointV1{URL: plan.RedactURL(ep.URL), Path: plan.RedactURL(ep.Path), API: string(ep.API), Stream: ep.Stream,
		Model: ep.Model, Models: ep.Models, ModelSelection: ep.ModelSelection,
		Tokenizer: ep.Tokenizer, TokenCount: ep.TokenCount, URLSelection: ep.URLSelection}
	if ep.URLs != nil {
		r.URLs = make([]string, len(ep.URLs))
		for i, u := range ep.URLs {
			r.URLs[i] = plan.RedactURL(u)
		}
	}
	return r
}

package runtime

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// PointRecordVersion is the layout version of PointRecord's JSON. It goes
// up when a reader of the old layout would misread the new one; fields
// may be added without a change.
const PointRecordVersion = 1

// PointRecord is the saved plan of one run of one point: the experiment as
// it was planned (its sweep, gates as written, goodput, token counting),
// the point's key and its place in run order, and how it ended. It is
// stored with the point's records, so a stored run can be read back into
// the same ExperimentResult the run produced (report, compare, merge)
// without guessing from labels or display strings.
type PointRecord struct {
	Version int `json:"version"`
	// Scenario is the scenario file's name without extension ("" for
	// profile and analyze).
	Scenario string     `json:"scenario,omitempty"`
	Plan     PlanRecord `json:"plan"`
	Point    PointRef   `json:"point"`
	Counting Counting   `json:"token_counting"`
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
}

// PointRef is a point's key within its experiment and its place in the
// order the experiment ran its points (an adaptive sweep's decisions are
// replayed in that order).
type PointRef struct {
	Params Params `json:"params"`
	Repeat int    `json:"repeat"`
	Index  int    `json:"index"`
}

// PlanRecord is an Experiment as saved: everything but what cannot or
// must not be stored — the dataset's entries (only described), request
// headers (credentials) and the URL's credentials.
type PlanRecord struct {
	Name     string         `json:"name"`
	Endpoint EndpointRecord `json:"endpoint"`
	// Dataset describes the dataset as a scenario writes it.
	Dataset    string     `json:"dataset"`
	Traffic    LoadRecord `json:"traffic"`
	Requests   int        `json:"requests,omitempty"`
	DurationMS int64      `json:"duration_ms,omitempty"`
	Sessions   int        `json:"sessions,omitempty"`
	Warmup     int        `json:"warmup,omitempty"`
	// Steady is the rule of an auto point; Requests or DurationMS is then
	// its cap.
	Steady   *metrics.SteadyRule `json:"steady_state,omitempty"`
	Repeats  int                 `json:"repeats"`
	Seed     uint64              `json:"seed"`
	Sweep    *SweepRecord        `json:"sweep,omitempty"`
	Gates    []string            `json:"gates,omitempty"`
	Goodput  []SLORecord         `json:"goodput,omitempty"`
	Cost     float64             `json:"cost_per_hour,omitempty"`
	Currency string              `json:"currency,omitempty"`
	Baseline string              `json:"baseline,omitempty"`
	Tags     map[string]string   `json:"tags,omitempty"`

	// ErrorBudget is experiment(error_budget=) / --max-error-rate as
	// written back ("5%"): a rebuild must know the user judged errors.
	ErrorBudget string `json:"error_budget,omitempty"`

	// PointSeeds is Experiment.PointSeeds: each point drew its own
	// prompts. Absent (false) in records of runs before it existed,
	// which all sent the same prompts at every point.
	PointSeeds bool `json:"point_seeds,omitempty"`
}

// EndpointRecord is an Endpoint without headers.
type EndpointRecord struct {
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

// LoadRecord is a Load.
type LoadRecord struct {
	Concurrency    int     `json:"concurrency,omitempty"`
	Rate           float64 `json:"rate,omitempty"`
	Arrival        string  `json:"arrival,omitempty"`
	Burstiness     float64 `json:"burstiness,omitempty"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
	ReplaySpeed    float64 `json:"replay_speed,omitempty"`
	Users          int     `json:"users,omitempty"`
	RampUpMS       int64   `json:"ramp_up_ms,omitempty"`
}

// SweepRecord is a Sweep, its search gate as written.
type SweepRecord struct {
	Params     []SweepParam `json:"grid,omitempty"`
	Saturation *Saturation  `json:"until_saturation,omitempty"`
	Search     *SearchPlan  `json:"search,omitempty"`
}

// SearchPlan is a Search, its gate as written.
type SearchPlan struct {
	Gate      string  `json:"gate"`
	Over      string  `json:"over"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Precision float64 `json:"precision"`
}

// SLORecord is a goodput SLO.
type SLORecord struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

// RecordOf is the saved plan of run key of e's point number index.
// Credentials are removed from the URL and the path; headers are never
// saved.
func RecordOf(scenario string, e *Experiment, key PointKey, index int) PointRecord {
	ep := e.Endpoint
	plan := PlanRecord{
		Name: e.Name, Traffic: loadRecord(e.Load),
		Endpoint: EndpointRecord{URL: RedactURL(ep.URL), Path: RedactURL(ep.Path), API: string(ep.API), Stream: ep.Stream,
			Model: ep.Model, Models: ep.Models, ModelSelection: ep.ModelSelection,
			Tokenizer: ep.Tokenizer, TokenCount: ep.TokenCount, URLs: redactURLs(ep.URLs), URLSelection: ep.URLSelection},
		Requests: e.Requests, DurationMS: e.Duration.Milliseconds(), Sessions: e.Sessions, Warmup: e.Warmup, Steady: e.Steady,
		Repeats: max(e.Repeats, 1), Seed: e.Seed, PointSeeds: e.PointSeeds, Cost: e.CostPerHour, Currency: e.Currency, Baseline: e.Baseline, Tags: e.Tags,
		Sweep: sweepRecord(e.Sweep),
	}
	if e.ErrorBudget != nil {
		plan.ErrorBudget = e.ErrorBudget.String()
	}
	if e.Dataset != nil {
		plan.Dataset = e.Dataset.String()
	}
	for _, g := range e.Gates {
		plan.Gates = append(plan.Gates, g.Source)
	}
	for _, slo := range e.Goodput {
		plan.Goodput = append(plan.Goodput, SLORecord{Metric: string(slo.Metric), Value: slo.Value})
	}
	return PointRecord{Version: PointRecordVersion, Scenario: scenario, Plan: plan,
		Point: PointRef{Params: key.Params, Repeat: key.Repeat, Index: index}}
}

func loadRecord(l Load) LoadRecord {
	return LoadRecord{Concurrency: l.Concurrency, Rate: l.Rate, Arrival: string(l.Arrival), Burstiness: l.Burstiness,
		MaxConcurrency: l.MaxConcurrency, ReplaySpeed: l.ReplaySpeed, Users: l.Users, RampUpMS: l.RampUp.Milliseconds()}
}

func sweepRecord(s *Sweep) *SweepRecord {
	if s == nil {
		return nil
	}
	r := &SweepRecord{Params: s.Params, Saturation: s.Saturation}
	if t := s.Search; t != nil {
		r.Search = &SearchPlan{Gate: t.Gate.Source, Over: t.Over, Lo: t.Lo, Hi: t.Hi, Precision: t.Precision}
	}
	return r
}

// Encode is the record as stored: compact JSON.
func (r PointRecord) Encode() (string, error) {
	b, err := json.Marshal(r)
	return string(b), err
}

// DecodePointRecord reads a stored record, refusing a layout newer than
// this version reads.
func DecodePointRecord(s string) (PointRecord, error) {
	var r PointRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("point record: %w", err)
	}
	if r.Version < 1 || r.Version > PointRecordVersion {
		return r, fmt.Errorf("point record: version %d, this llmbench reads 1 to %d", r.Version, PointRecordVersion)
	}
	return r, nil
}

// errStoredDataset is what building the dataset of a stored plan gives:
// only its description was saved.
var errStoredDataset = errors.New("the dataset of a stored run is only described, not stored")

// storedDataset stands for a stored plan's dataset: it names itself as the
// run described it and cannot be drawn again.
type storedDataset string

func (d storedDataset) String() string                     { return string(d) }
func (d storedDataset) Build(int) ([]dataset.Entry, error) { return nil, errStoredDataset }

// Experiment rebuilds the planned experiment: its gates and search gate
// parsed again from their sources, its dataset described only.
func (p PlanRecord) Experiment() (*Experiment, error) {
	ep := p.Endpoint
	e := &Experiment{
		Name: p.Name, Dataset: storedDataset(p.Dataset), Load: p.Traffic.load(),
		Endpoint: Endpoint{URL: ep.URL, Path: ep.Path, API: transport.API(ep.API), Stream: ep.Stream, Model: ep.Model,
			Models: ep.Models, ModelSelection: ep.ModelSelection, Tokenizer: ep.Tokenizer, TokenCount: ep.TokenCount,
			URLs: ep.URLs, URLSelection: ep.URLSelection},
		Requests: p.Requests, Duration: time.Duration(p.DurationMS) * time.Millisecond, Sessions: p.Sessions, Warmup: p.Warmup, Steady: p.Steady,
		Repeats: p.Repeats, Seed: p.Seed, PointSeeds: p.PointSeeds, CostPerHour: p.Cost, Currency: p.Currency, Baseline: p.Baseline, Tags: p.Tags,
	}
	if p.ErrorBudget != "" {
		b, err := ParseErrorBudget(p.ErrorBudget)
		if err != nil {
			return nil, fmt.Errorf("experiment %q: error_budget: %w", p.Name, err)
		}
		e.ErrorBudget = b
	}
	for _, src := range p.Gates {
		g, err := metrics.ParseStoredGate(src)
		if err == nil {
			err = g.PriceIn(cmp.Or(p.Currency, "EUR"))
		}
		if err != nil {
			return nil, fmt.Errorf("experiment %q: %w", p.Name, err)
		}
		e.Gates = append(e.Gates, g)
	}
	for _, slo := range p.Goodput {
		m, err := metrics.ParseGoodputMetric(slo.Metric)
		if err != nil {
			return nil, fmt.Errorf("experiment %q: goodput: %w", p.Name, err)
		}
		e.Goodput = append(e.Goodput, metrics.SLO{Metric: m, Value: slo.Value})
	}
	sw, err := p.Sweep.sweep()
	if err != nil {
		return nil, fmt.Errorf("experiment %q: %w", p.Name, err)
	}
	e.Sweep = sw
	return e, nil
}

func (l LoadRecord) load() Load {
	return Load{Concurrency: l.Concurrency, Rate: l.Rate, Arrival: Arrival(l.Arrival), Burstiness: l.Burstiness,
		MaxConcurrency: l.MaxConcurrency, ReplaySpeed: l.ReplaySpeed, Users: l.Users,
		RampUp: time.Duration(l.RampUpMS) * time.Millisecond}
}

func (r *SweepRecord) sweep() (*Sweep, error) {
	if r == nil {
		return nil, nil
	}
	s := &Sweep{Params: r.Params, Saturation: r.Saturation}
	if t := r.Search; t != nil {
		g, err := metrics.ParseStoredGate(t.Gate)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		s.Search = &Search{Gate: g, Over: t.Over, Lo: t.Lo, Hi: t.Hi, Precision: t.Precision}
	}
	return s, nil
}

// redactURLs removes credentials from every URL; nil stays nil.
func redactURLs(urls []string) []string {
	if urls == nil {
		return nil
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = RedactURL(u)
	}
	return out
}

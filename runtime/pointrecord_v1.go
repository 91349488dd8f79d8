package runtime

// The point record of version 1 (records written before the stored plan
// was the plan's own JSON): its plan was a hand-kept mirror of the
// experiment, read here into a plan.Experiment. Its endpoint, load and
// goodput layouts are also what a checkpoint's identity hashes
// (CheckpointIdentity), so they are frozen: a run written before resumes.

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// pointRecordV1 is PointRecord as version 1 stored it.
type pointRecordV1 struct {
	PointRecord
	Plan planV1 `json:"plan"`
}

// decodePointRecordV1 reads a version 1 record into the current layout.
func decodePointRecordV1(s string) (PointRecord, error) {
	var r pointRecordV1
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return PointRecord{}, fmt.Errorf("point record: %w", err)
	}
	exp, err := r.Plan.experiment()
	if err != nil {
		return PointRecord{}, fmt.Errorf("point record: %w", err)
	}
	rec := r.PointRecord
	rec.Version, rec.Plan = PointRecordVersion, *exp // read into the current layout
	return rec, nil
}

// planV1 is an Experiment as saved: everything but what cannot or
// must not be stored — the dataset's entries (only described), request
// headers (credentials) and the URL's credentials.
type planV1 struct {
	Name     string     `json:"name"`
	Endpoint endpointV1 `json:"endpoint"`
	// Dataset describes the dataset as a scenario writes it.
	Dataset    string `json:"dataset"`
	Traffic    loadV1 `json:"traffic"`
	Requests   int    `json:"requests,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	Sessions   int    `json:"sessions,omitempty"`
	Warmup     int    `json:"warmup,omitempty"`
	// Steady is the rule of an auto point; Requests or DurationMS is then
	// its cap.
	Steady   *metrics.SteadyRule `json:"steady_state,omitempty"`
	Repeats  int                 `json:"repeats"`
	Seed     uint64              `json:"seed"`
	Sweep    *sweepV1            `json:"sweep,omitempty"`
	Gates    []string            `json:"gates,omitempty"`
	Goodput  []sloV1             `json:"goodput,omitempty"`
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

// sweepV1 is a Sweep, its search gate as written.
type sweepV1 struct {
	Params     []SweepParam `json:"grid,omitempty"`
	Saturation *Saturation  `json:"until_saturation,omitempty"`
	Search     *searchV1    `json:"search,omitempty"`
}

// searchV1 is a Search, its gate as written.
type searchV1 struct {
	Gate      string  `json:"gate"`
	Over      string  `json:"over"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Precision float64 `json:"precision"`
}

// sloV1 is a goodput SLO.
type sloV1 struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

// experiment rebuilds the planned experiment: its gates and search gate
// parsed again from their sources, its dataset described only.
func (p planV1) experiment() (*Experiment, error) {
	ep := p.Endpoint
	e := &Experiment{
		Name: p.Name, Dataset: plan.Described(p.Dataset), Load: p.Traffic.load(),
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

func (l loadV1) load() Load {
	return Load{Concurrency: l.Concurrency, Rate: l.Rate, Arrival: Arrival(l.Arrival), Burstiness: l.Burstiness,
		MaxConcurrency: l.MaxConcurrency, ReplaySpeed: l.ReplaySpeed, Users: l.Users,
		RampUp: time.Duration(l.RampUpMS) * time.Millisecond}
}

func (r *sweepV1) sweep() (*Sweep, error) {
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

func loadRecord(l Load) loadV1 {
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
	Dataset  string  `json:"dataset"`
	Traffic  loadV1  `json:"traffic"`
	Requests int     `json:"requests"`
	Duration string  `json:"duration"`
	Warmup   int     `json:"warmup"`
	Seed     uint64  `json:"seed"`
	Goodput  []sloV1 `json:"goodput,omitempty"`
	Params   Params  `json:"params"`
	Repeat   int     `json:"repeat"`
}

// CheckpointIdentity is what makes a run of e's point key the same run
// again, as a digest (so the checkpoint holds none of the values, body
// extras included): anything changed in the plan that changes what is
// measured measures the point again.
func CheckpointIdentity(e *Experiment, key PointKey) ([]byte, error) {
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
func endpointV1Of(ep Endpoint) endpointV1 {
	r := endpointV1{URL: RedactURL(ep.URL), Path: RedactURL(ep.Path), API: string(ep.API), Stream: ep.Stream,
		Model: ep.Model, Models: ep.Models, ModelSelection: ep.ModelSelection,
		Tokenizer: ep.Tokenizer, TokenCount: ep.TokenCount, URLSelection: ep.URLSelection}
	if ep.URLs != nil {
		r.URLs = make([]string, len(ep.URLs))
		for i, u := range ep.URLs {
			r.URLs[i] = RedactURL(u)
		}
	}
	return r
}

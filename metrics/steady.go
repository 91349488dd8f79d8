package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SteadyRule is when an auto point (requests="auto", duration="auto") has
// measured enough: the confidence interval of the p50 and p99 of each of
// its metrics (TTFT and ITL when streaming, request latency otherwise) is
// within ±CI of the estimate, with at least MinRequests kept after the
// warm-up transient is dropped. The maximum (a request count or a
// duration) is the point's ordinary stop condition; reaching it first
// means the point did not converge.
type SteadyRule struct {
	// CI is the relative half-width every interval must reach: 0.05 is
	// ±5% of the percentile.
	CI float64 `json:"ci"`
	// Confidence is the two-sided level of the intervals (0.95).
	Confidence float64 `json:"confidence"`
	// MinRequests is the fewest requests kept after the warm-up before
	// the rule may stop a point; the first check is made there.
	MinRequests int `json:"min_requests"`
	// MaxRequests and MaxDuration are the caps (one of them is the
	// point's stop condition; 0 = not this one).
	MaxRequests int   `json:"max_requests,omitempty"`
	MaxDuration int64 `json:"max_duration_ns,omitempty"`
	// Stability, when set, is perf_analyzer's windowed rule instead of
	// the intervals': CI, Confidence and MinRequests do not apply, and
	// MaxDuration is its windows' cap.
	Stability *StabilityRule `json:"stability,omitempty"`
}

// The defaults of steady(): why each is what it is is in docs/scenarios.md.
const (
	DefaultSteadyCI          = 0.05
	DefaultSteadyConfidence  = 0.95
	DefaultSteadyMinRequests = 100
	DefaultSteadyMaxRequests = 10000
	// MinSteadyRequests is the smallest min_requests: 10 batches of 5.
	// With fewer, MSER's last candidate cut (half the batches) leaves so
	// few batches that their spread is nearly always the smallest, and
	// the rule would drop half of any short series.
	MinSteadyRequests = 10 * MSERBatch
	// steadyResamples is B for the per-check bootstrap: half of compare's
	// 2000, as a check is repeated and only decides whether to go on.
	steadyResamples = 1000
	// steadyStepMin and steadyStepShare space the checks: after the first
	// (at MinRequests) the next comes after 10% more records, at least 50.
	steadyStepMin   = 50
	steadyStepShare = 0.10
)

// Validate reports the first value out of range, naming its parameter.
func (r SteadyRule) Validate() error {
	if r.Stability != nil {
		return r.Stability.Validate()
	}
	switch {
	case !(r.CI > 0 && r.CI < 1):
		return fmt.Errorf("ci: want a relative half-width in (0, 1) such as 0.05, got %g", r.CI)
	case !(r.Confidence > 0 && r.Confidence < 1):
		return fmt.Errorf("confidence: want a level in (0, 1) such as 0.95, got %g", r.Confidence)
	case r.MinRequests < MinSteadyRequests:
		return fmt.Errorf("min_requests: want at least %d, got %d", MinSteadyRequests, r.MinRequests)
	case r.MaxRequests < 0 || r.MaxDuration < 0:
		return errors.New("max_requests and max_duration must not be negative")
	case r.MaxRequests > 0 && r.MaxRequests < r.MinRequests:
		return fmt.Errorf("max_requests: want at least min_requests (%d), got %d", r.MinRequests, r.MaxRequests)
	}
	return nil
}

// SteadyMetrics are the metrics the rule judges: TTFT and ITL for a
// streamed point, request latency for a whole-response one (its TTFT is
// its latency, and it has no ITL).
func SteadyMetrics(stream bool) []*Metric {
	if stream {
		return []*Metric{TTFT, ITL}
	}
	return []*Metric{RequestLatency}
}

// steadyStats are the percentiles judged of every metric.
var steadyStats = []float64{50, 99}

// SteadyWidth is one percentile's interval at a check.
type SteadyWidth struct {
	// Metric is "ttft.p50", "itl.p99", ...
	Metric   string  `json:"metric"`
	Estimate float64 `json:"estimate_ns"`
	Low      float64 `json:"low_ns"`
	High     float64 `json:"high_ns"`
	// Width is the larger of (Estimate − Low) and (High − Estimate) over
	// Estimate: the ± the rule compares with CI; +Inf when a bound is
	// unknown (too few values in the tail).
	Width float64 `json:"width"`
}

// SteadyCheck is the rule applied once, to the first Requests records.
type SteadyCheck struct {
	Requests int `json:"requests"`
	// Warmup is how many leading records MSER-5 judged a transient.
	Warmup int           `json:"warmup"`
	Widths []SteadyWidth `json:"widths"`
	// Windows are a windowed rule's measurement windows so far; its
	// Widths are the last windows' throughput and latency spreads
	// (max/min − 1).
	Windows []StabilityWindow `json:"windows,omitempty"`
	// Met is set when every width is within CI and at least MinRequests
	// records were kept.
	Met bool `json:"met"`
}

// Widest is the check's largest width (+Inf when a bound is unknown, 0
// with no metrics).
func (c SteadyCheck) Widest() float64 {
	w := 0.0
	for _, x := range c.Widths {
		w = math.Max(w, x.Width)
	}
	return w
}

// SteadyChecker applies a SteadyRule to a point's records as they finish,
// in the order they finish (the order records.parquet holds them). It is
// not safe for concurrent use: a point's records are reduced on one
// goroutine.
type SteadyChecker struct {
	rule    SteadyRule
	metrics []*Metric
	// rows hold per record each metric's value, NaN when the record has
	// none (failed, or no ITL).
	rows [][]float64
	next int
	last *SteadyCheck
	// windows applies a windowed rule (rule.Stability) instead.
	windows *windowChecker
}

// NewSteadyChecker starts the rule over the named metrics (SteadyMetrics).
func NewSteadyChecker(rule SteadyRule, metrics []*Metric) *SteadyChecker {
	c := &SteadyChecker{rule: rule, metrics: metrics, next: rule.MinRequests}
	if rule.Stability != nil {
		c.windows = &windowChecker{rule: *rule.Stability}
	}
	return c
}

// Add takes the next finished record (token-counted) and reports the
// check it made when the record completed a check's batch, nil otherwise.
func (c *SteadyChecker) Add(r *Record) *SteadyCheck {
	if c.windows != nil {
		return c.windows.add(r)
	}
	row := make([]float64, len(c.metrics))
	var d RequestMetrics
	if r.Err == nil {
		d = r.Metrics()
	}
	for i, m := range c.metrics {
		row[i] = math.NaN()
		if r.Err == nil {
			if v := m.request(r, d); len(v) == 1 {
				row[i] = v[0]
			}
		}
	}
	c.rows = append(c.rows, row)
	if len(c.rows) < c.next {
		return nil
	}
	c.next = len(c.rows) + max(steadyStepMin, int(math.Ceil(steadyStepShare*float64(len(c.rows)))))
	chk := c.Check()
	c.last = &chk
	return &chk
}

// Last is the most recent check Add made, nil before the first.
func (c *SteadyChecker) Last() *SteadyCheck {
	if c.windows != nil {
		return c.windows.last
	}
	return c.last
}

// Check applies the rule to every record taken so far; a windowed rule to
// every window closed so far.
func (c *SteadyChecker) Check() SteadyCheck {
	if c.windows != nil {
		if c.windows.last == nil {
			return SteadyCheck{Requests: c.windows.added}
		}
		return *c.windows.last
	}
	return SteadyRows(c.rule, c.metrics, c.rows)
}

// SteadyRows applies the rule to rows (per record, each metric's value or
// NaN), in finish order: MSER-5 on each metric's values gives a cut, the
// latest of them drops that many leading records, and each percentile's
// interval is computed on what is left.
func SteadyRows(rule SteadyRule, metrics []*Metric, rows [][]float64) SteadyCheck {
	chk := SteadyCheck{Requests: len(rows)}
	for i := range metrics {
		idx, vals := column(rows, i, 0)
		if d := MSERTruncation(vals); d > 0 {
			chk.Warmup = max(chk.Warmup, idx[d-1]+1)
		}
	}
	met := len(rows)-chk.Warmup >= rule.MinRequests
	for i, m := range metrics {
		_, vals := column(rows, i, chk.Warmup)
		for _, p := range steadyStats {
			w := percentileInterval(vals, p, rule.Confidence)
			w.Metric = fmt.Sprintf("%s.p%g", m, p)
			chk.Widths = append(chk.Widths, w)
			met = met && w.Width <= rule.CI
		}
	}
	chk.Met = met
	return chk
}

// column is metric i's values of rows[from:] and the row index of each.
func column(rows [][]float64, i, from int) (idx []int, vals []float64) {
	for k := from; k < len(rows); k++ {
		if v := rows[k][i]; !math.IsNaN(v) {
			idx, vals = append(idx, k), append(vals, v)
		}
	}
	return idx, vals
}

// percentileInterval is the confidence interval of the percentile p of
// time-ordered values by the moving-block bootstrap `llmbench compare`
// uses (BlockLength's block, percentile interval), widened to the
// distribution-free order-statistic bounds when the tail is thin
// (thinTail, orderStatistics). Requests of one run are not independent (a slow batch slows its
// neighbours); blocks keep that dependence, where an iid interval would
// be too narrow and stop a point early.
func percentileInterval(values []float64, p, confidence float64) SteadyWidth {
	w := SteadyWidth{Width: math.Inf(1)}
	if len(values) < 2 {
		return w
	}
	w.Estimate = selectPercentile(slices.Clone(values), p)
	res := newBlockResampler(values, BlockLength(values))
	rng := rand.New(rand.NewPCG(1, 0x6c6c6d62656e6368))
	stats := make([]float64, steadyResamples)
	for b := range stats {
		stats[b] = selectPercentile(res.resample(rng), p)
	}
	slices.Sort(stats)
	alpha := 1 - confidence
	w.Low, w.High = sortedQuantile(stats, alpha/2), sortedQuantile(stats, 1-alpha/2)
	if thinTail(len(values), p) {
		o := newOrderStatistics(values, p/100)
		lo, hi := o.lower(alpha/2), o.upper(alpha/2)
		if o.lowerCost() > alpha/2 {
			lo = math.Inf(-1)
		}
		w.Low, w.High = math.Min(w.Low, lo), math.Max(w.High, hi)
	}
	if w.Estimate > 0 {
		w.Width = math.Max(w.Estimate-w.Low, w.High-w.Estimate) / w.Estimate
	}
	return w
}

// MarshalJSON writes an unknown (infinite) bound or width as null, which
// JSON can hold and a reader can tell from a number.
func (w SteadyWidth) MarshalJSON() ([]byte, error) {
	finite := func(f float64) *float64 {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil
		}
		return &f
	}
	return json.Marshal(struct {
		Metric   string   `json:"metric"`
		Estimate float64  `json:"estimate_ns"`
		Low      *float64 `json:"low_ns"`
		High     *float64 `json:"high_ns"`
		Width    *float64 `json:"width"`
	}{w.Metric, w.Estimate, finite(w.Low), finite(w.High), finite(w.Width)})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as unbounded.
func (w *SteadyWidth) UnmarshalJSON(b []byte) error {
	var v struct {
		Metric   string   `json:"metric"`
		Estimate float64  `json:"estimate_ns"`
		Low      *float64 `json:"low_ns"`
		High     *float64 `json:"high_ns"`
		Width    *float64 `json:"width"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	or := func(p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		return *p
	}
	*w = SteadyWidth{Metric: v.Metric, Estimate: v.Estimate, Low: or(v.Low, math.Inf(-1)), High: or(v.High, math.Inf(1)), Width: or(v.Width, math.Inf(1))}
	return nil
}

// minTailValues is the fewest values a percentile's thinner tail must
// hold (n·q below it or n·(1 − q) above it) for its percentile-bootstrap
// interval to be trusted. Below it the percentile rests on a handful of
// extreme values — the p99 of 150 requests is the second largest — and
// resampling them cannot show how far the true percentile may lie beyond
// them: bench/calibrate measured such intervals containing an unchanged
// ratio in 82–86% of identical pairs instead of 95%.
const minTailValues = 10

// thinTail reports whether the percentile p (0..100) of n values has a
// tail too thin for the bootstrap alone.
func thinTail(n int, p float64) bool {
	q := p / 100
	return float64(n)*math.Min(q, 1-q) < minTailValues
}

package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Series is what a comparison reads of one run's requests: per request
// its send and completion times, whether it failed, its output tokens,
// its dataset component, and its values of the distribution metrics
// asked for. A run being measured fills one as its records finish, so a
// baseline gate can be judged without keeping the records (their text and
// chunk times) in memory; a stored run's records fill one the same way,
// so both sides of a comparison are read by the same code.
type Series struct {
	// tracked are the distribution metrics (short names) whose values are
	// kept, in the order of each row's values.
	tracked []string
	rows    []seriesRow
}

type seriesRow struct {
	sent, done   int64
	failed       bool
	outputTokens int
	component    string
	// values holds one slice per tracked metric: none when the request
	// has no such value, several for chunk_gap.
	values [][]float64
}

// NewSeries is an empty series keeping the values of the metrics named
// (as gates name them, with or without a statistic: "ttft.p99", "itl").
// The whole-run metrics (error_rate, the throughputs) need nothing
// tracked: every row keeps what they are computed from.
func NewSeries(metrics ...string) (*Series, error) {
	s := &Series{}
	for _, name := range metrics {
		base, err := seriesMetric(name)
		if err != nil {
			return nil, err
		}
		if _, ok := requestValue[base]; ok && !slices.Contains(s.tracked, base) {
			s.tracked = append(s.tracked, base)
		}
	}
	return s, nil
}

// seriesMetric is the short name of a metric a series can be compared on.
func seriesMetric(name string) (string, error) {
	base, _, _ := strings.Cut(name, ".")
	m := lookupGateMetric(base)
	if m == nil {
		return "", fmt.Errorf("unknown metric %q, want %s", base, gateMetricList())
	}
	if _, ok := requestValue[m.name]; !ok && !wholeRunSeries[m.name] {
		return "", fmt.Errorf("%s has no per-request values to compare", m.name)
	}
	return m.name, nil
}

// HasSeries reports whether metric (named as gates name it) has values a
// single run can be compared on; one without (request_goodput, energy,
// cost) is compared on repeats only, two or more on each side.
func HasSeries(metric string) bool {
	_, err := seriesMetric(metric)
	return err == nil
}

// wholeRunSeries are the metrics computed from a series' rows alone.
var wholeRunSeries = map[string]bool{"error_rate": true, "output_token_throughput": true, "request_throughput": true}

// Add takes one finished record (token-counted). It is not safe for
// concurrent use: a run's records are reduced on one goroutine.
func (s *Series) Add(r *Record) {
	row := seriesRow{sent: r.Sent, done: r.Done, failed: r.Err != nil, outputTokens: r.OutputTokens, component: r.Component}
	if !row.failed && len(s.tracked) > 0 {
		d := r.Metrics()
		row.values = make([][]float64, len(s.tracked))
		for i, m := range s.tracked {
			row.values[i] = requestValue[m](r, d)
		}
	}
	s.rows = append(s.rows, row)
}

// SeriesOf is the series of stored records, keeping metric's values.
func SeriesOf(metric string, recs []Record) (*Series, error) {
	s, err := NewSeries(metric)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		s.Add(&recs[i])
	}
	return s, nil
}

// Component is the part of the series sent by one dataset component.
func (s *Series) Component(name string) *Series {
	out := &Series{tracked: s.tracked}
	for _, r := range s.rows {
		if r.component == name {
			out.rows = append(out.rows, r)
		}
	}
	return out
}

// GobEncode sends nothing: a series stays in the process that measured
// it (the Starlark child that runs check() judges no baseline gate).
func (s *Series) GobEncode() ([]byte, error) { return []byte{}, nil }

// GobDecode receives an empty series (see GobEncode).
func (s *Series) GobDecode([]byte) error { return nil }

// Len is the number of requests in the series, failed ones included.
func (s *Series) Len() int { return len(s.rows) }

// values are the values metric's statistic is computed from, in send
// order: completed requests' values of a distribution metric; 1 or 0 per
// request, failed or not, for error_rate; per-window rates for the
// whole-run throughputs.
func (s *Series) values(metric string) ([]float64, error) {
	rows := slices.Clone(s.rows)
	slices.SortStableFunc(rows, func(a, b seriesRow) int { return cmp.Compare(a.sent, b.sent) })
	switch metric {
	case "error_rate":
		out := make([]float64, len(rows))
		for i, r := range rows {
			out[i] = indicator(r.failed)
		}
		return out, nil
	case "output_token_throughput":
		return rowRates(rows, func(r seriesRow) float64 { return float64(r.outputTokens) }), nil
	case "request_throughput":
		return rowRates(rows, func(seriesRow) float64 { return 1 }), nil
	}
	k := slices.Index(s.tracked, metric)
	if k < 0 {
		return nil, fmt.Errorf("no per-request values for %s were kept", metric)
	}
	var out []float64
	for _, r := range rows {
		if !r.failed {
			out = append(out, r.values[k]...)
		}
	}
	return out, nil
}

// rowRates are a whole-run rate's per-window values: amount credited at
// each completed request's completion, the run from its first send to its
// last completion cut into windowsPerRun windows (WindowRates).
func rowRates(rows []seriesRow, amount func(seriesRow) float64) []float64 {
	if len(rows) == 0 {
		return nil
	}
	var times []int64
	var amounts []float64
	start, end := rows[0].sent, int64(0) // rows are in send order
	for _, r := range rows {
		end = max(end, r.done)
		if !r.failed {
			times, amounts = append(times, r.done), append(amounts, amount(r))
		}
	}
	width := max((end-start)/windowsPerRun, minWindow)
	return WindowRates(times, amounts, start, end, width)
}

// requestValue reads a distribution metric's values from one completed
// request, none when the request has no such value (an ITL needs two
// chunks).
var requestValue = map[string]func(*Record, RequestMetrics) []float64{
	"ttft":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.TTFT)) },
	"request_latency": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.Latency)) },
	"ttst":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTST, float64(d.TTST)) },
	"itl":             func(_ *Record, d RequestMetrics) []float64 { return some(d.HasITL, float64(d.ITL)) },
	"ttfo":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTFO, float64(d.TTFO)) },
	"output_token_throughput_per_user": func(_ *Record, d RequestMetrics) []float64 {
		return some(d.HasTPSUser, d.TPSUser)
	},
	"isl": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.ISL)) },
	"osl": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.OSL)) },
	"schedule_lag": func(r *Record, _ RequestMetrics) []float64 {
		return some(r.Scheduled != 0, float64(r.Sent-r.Scheduled))
	},
	"ttft_from_schedule": func(_ *Record, d RequestMetrics) []float64 {
		return some(d.HasFromSchedule, float64(d.TTFTFromSchedule))
	},
	"request_latency_from_schedule": func(_ *Record, d RequestMetrics) []float64 {
		return some(d.HasFromSchedule, float64(d.LatencyFromSchedule))
	},
	"chunk_gap": func(_ *Record, d RequestMetrics) []float64 {
		gaps := make([]float64, len(d.ChunkGaps))
		for i, g := range d.ChunkGaps {
			gaps[i] = float64(g)
		}
		return gaps
	},
}

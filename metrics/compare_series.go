package metrics

import (
	"cmp"
	"fmt"
	"slices"
)

// Series is what a comparison reads of one run's requests: per request
// its send and completion times, whether it failed, its output tokens,
// its dataset component, and its values of the distribution metrics
// asked for. A run being measured fills one as its records finish, so a
// baseline gate can be judged without keeping the records (their text and
// chunk times) in memory; a stored run's records fill one the same way,
// so both sides of a comparison are read by the same code.
type Series struct {
	// tracked are the distribution metrics whose values are kept, in the
	// order of each row's values.
	tracked []*Metric
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

// NewSeries is an empty series keeping the per-request values of the
// metrics given. The whole-run metrics (error_rate, the throughputs) need
// nothing tracked: every row keeps what they are computed from. A metric
// with no series at all (HasSeries) is an error.
func NewSeries(metrics ...*Metric) (*Series, error) {
	s := &Series{}
	for _, m := range metrics {
		if !m.HasSeries() {
			return nil, fmt.Errorf("%s has no per-request values to compare", m.Name)
		}
		if m.request != nil && !slices.Contains(s.tracked, m) {
			s.tracked = append(s.tracked, m)
		}
	}
	return s, nil
}

// Add takes one finished record (token-counted). It is not safe for
// concurrent use: a run's records are reduced on one goroutine.
func (s *Series) Add(r *Record) {
	row := seriesRow{sent: r.Sent, done: r.Done, failed: r.Err != nil, outputTokens: r.OutputTokens, component: r.Component}
	if !row.failed && len(s.tracked) > 0 {
		d := r.Metrics()
		row.values = make([][]float64, len(s.tracked))
		for i, m := range s.tracked {
			row.values[i] = m.request(r, d)
		}
	}
	s.rows = append(s.rows, row)
}

// SeriesOf is the series of stored records, keeping metric's values
// (none for a metric without a series).
func SeriesOf(metric *Metric, recs []Record) *Series {
	s := &Series{}
	if metric.request != nil {
		s.tracked = []*Metric{metric}
	}
	for i := range recs {
		s.Add(&recs[i])
	}
	return s
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
// order: completed requests' values of a distribution metric; what the
// metric's wholeRun makes of the rows for a run-level one.
func (s *Series) values(metric *Metric) ([]float64, error) {
	rows := slices.Clone(s.rows)
	slices.SortStableFunc(rows, func(a, b seriesRow) int { return cmp.Compare(a.sent, b.sent) })
	if metric.wholeRun != nil {
		return metric.wholeRun(rows), nil
	}
	k := slices.Index(s.tracked, metric)
	if k < 0 {
		return nil, fmt.Errorf("no per-request values for %s were kept", metric.Name)
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

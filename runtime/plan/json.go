package plan

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
)

// The plan's JSON is its stored form (records.parquet's point record):
// plain fields as they are, and the few values that are not plain data
// written as a scenario writes them — the dataset as its description,
// gates as written, goodput as metric and value — so that reading it
// back parses them again into the same plan, its dataset only described.

// storedSLO is a goodput SLO as stored.
type storedSLO struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

// MarshalJSON is the stored form of the plan.
func (e Experiment) MarshalJSON() ([]byte, error) {
	type plain Experiment // the same fields without this method
	w := struct {
		plain
		Dataset string      `json:"dataset"`
		Gates   []string    `json:"gates,omitempty"`
		Goodput []storedSLO `json:"goodput,omitempty"`
	}{plain: plain(e)}
	if e.Dataset != nil {
		w.Dataset = e.Dataset.String()
	}
	for _, g := range e.Gates {
		w.Gates = append(w.Gates, g.Source)
	}
	for _, slo := range e.Goodput {
		w.Goodput = append(w.Goodput, storedSLO{Metric: string(slo.Metric), Value: slo.Value})
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a stored plan: its gates and goodput parsed again,
// its dataset Described.
func (e *Experiment) UnmarshalJSON(b []byte) error {
	type plain Experiment
	w := struct {
		*plain
		Dataset string      `json:"dataset"`
		Gates   []string    `json:"gates"`
		Goodput []storedSLO `json:"goodput"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Dataset = Described(w.Dataset)
	var err error
	if e.Gates, err = storedGates(w.Gates, e.Currency); err != nil {
		return fmt.Errorf("experiment %q: %w", e.Name, err)
	}
	if e.Goodput, err = storedGoodput(w.Goodput); err != nil {
		return fmt.Errorf("experiment %q: goodput: %w", e.Name, err)
	}
	return nil
}

// storedGates parses gates as written, a cost gate priced in currency
// (EUR when empty), as experiment() prices it.
func storedGates(sources []string, currency string) ([]metrics.Gate, error) {
	var gates []metrics.Gate
	for _, src := range sources {
		g, err := metrics.ParseStoredGate(src)
		if err == nil {
			err = g.PriceIn(cmp.Or(currency, "EUR"))
		}
		if err != nil {
			return nil, err
		}
		gates = append(gates, g)
	}
	return gates, nil
}

func storedGoodput(slos []storedSLO) ([]metrics.SLO, error) {
	var out []metrics.SLO
	for _, slo := range slos {
		m, err := metrics.ParseGoodputMetric(slo.Metric)
		if err != nil {
			return nil, err
		}
		out = append(out, metrics.SLO{Metric: m, Value: slo.Value})
	}
	return out, nil
}

// MarshalJSON stores the endpoint without credentials: its URLs and path
// redacted (headers and body extras are never stored at all).
func (e Endpoint) MarshalJSON() ([]byte, error) {
	type plain Endpoint
	p := plain(e)
	p.URL, p.Path = RedactURL(e.URL), RedactURL(e.Path)
	if e.URLs != nil {
		p.URLs = make([]string, len(e.URLs))
		for i, u := range e.URLs {
			p.URLs[i] = RedactURL(u)
		}
	}
	return json.Marshal(p)
}

// MarshalJSON stores the search with its gate as written.
func (s Search) MarshalJSON() ([]byte, error) {
	type plain Search
	return json.Marshal(struct {
		Gate string `json:"gate"`
		plain
	}{Gate: s.Gate.Source, plain: plain(s)})
}

// UnmarshalJSON reads a stored search, parsing its gate again.
func (s *Search) UnmarshalJSON(b []byte) error {
	type plain Search
	w := struct {
		Gate string `json:"gate"`
		*plain
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	g, err := metrics.ParseStoredGate(w.Gate)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	s.Gate = g
	return nil
}

// MarshalText is the budget as written: a percentage.
func (b ErrorBudget) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a budget as ParseErrorBudget does.
func (b *ErrorBudget) UnmarshalText(text []byte) error {
	v, err := ParseErrorBudget(string(text))
	if err != nil {
		return fmt.Errorf("error_budget: %w", err)
	}
	*b = *v
	return nil
}

// ErrDescribedDataset is what drawing a Described dataset gives: only its
// description was stored.
var ErrDescribedDataset = errors.New("the dataset of a stored run is only described, not stored")

// Described stands for a stored plan's dataset: it names itself as the
// run described it and cannot be drawn again.
type Described string

func (d Described) String() string                     { return string(d) }
func (d Described) Build(int) ([]dataset.Entry, error) { return nil, ErrDescribedDataset }

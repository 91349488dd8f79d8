package plan

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// Params are the values that tell a point apart from the other points of
// its experiment: its load (concurrency, rate or replay speed) and any
// swept token lengths, keyed by the metrics.Param* names. The label, the
// folder, the gate's "@" and the sweep axis are all derived from them, so
// two points can never share a label unless they share their values.
type Params map[string]float64

// With returns a copy with name set to v. A point has one load, so
// setting concurrency drops a rate and the other way round.
func (p Params) With(name string, v float64) Params {
	q := maps.Clone(p)
	if q == nil {
		q = Params{}
	}
	switch name {
	case metrics.ParamConcurrency:
		delete(q, metrics.ParamRate)
	case metrics.ParamRate:
		delete(q, metrics.ParamConcurrency)
	}
	q[name] = v
	return q
}

// Label names the point GenAI-Perf style, load first: "concurrency16",
// "request_rate10.0", "concurrency8-input_tokens512". It is the point's
// folder name and its title on the console.
func (p Params) Label() string {
	var parts []string
	if c, ok := p[metrics.ParamConcurrency]; ok {
		parts = append(parts, "concurrency"+strconv.Itoa(int(c)))
	}
	if r, ok := p[metrics.ParamRate]; ok {
		parts = append(parts, "request_rate"+pyFloat(r))
	}
	if v, ok := p[metrics.ParamReplaySpeed]; ok {
		parts = append(parts, "replay_speed"+pyFloat(v))
	}
	if u, ok := p[metrics.ParamUsers]; ok {
		parts = append(parts, "users"+strconv.Itoa(int(u)))
	}
	for _, name := range metrics.TokenParams {
		if v, ok := p[name]; ok {
			parts = append(parts, name+strconv.Itoa(int(v)))
		}
	}
	return strings.Join(parts, "-")
}

// Load is the point's load parameter and its value; ok is false for a
// point without one.
func (p Params) Load() (name string, v float64, ok bool) {
	for _, name := range metrics.LoadParams {
		if v, ok := p[name]; ok {
			return name, v, true
		}
	}
	return "", 0, false
}

// Compare orders points by load, then by their other values in name
// order: the order sweep tables and plots list points in.
func (p Params) Compare(q Params) int {
	_, a, _ := p.Load()
	_, b, _ := q.Load()
	if c := cmp.Compare(a, b); c != 0 {
		return c
	}
	for _, name := range slices.Sorted(maps.Keys(p)) {
		if c := cmp.Compare(p[name], q[name]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(p), len(q))
}

// pyFloat prints a float as Python's repr does for plain values: 10.0, 2.5.
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

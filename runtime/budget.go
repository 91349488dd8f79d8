package runtime

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// budgetFloor is the fewest finished requests a rate is taken over: with
// fewer, the rate is counted as if this many had finished, so one early
// failure does not stop a run with a 5% budget (a point planned shorter
// is judged over its planned count).
const budgetFloor = 20

// budgetMeter follows one run of a point against its budget.
type budgetMeter struct {
	budget           *plan.ErrorBudget
	floor            int
	failed, finished int
}

func newBudgetMeter(b *plan.ErrorBudget, planned int) *budgetMeter {
	floor := budgetFloor
	if planned > 0 {
		floor = min(floor, planned)
	}
	return &budgetMeter{budget: b, floor: floor}
}

// add counts rec and reports whether the budget is now exceeded.
func (m *budgetMeter) add(rec *metrics.Record) bool {
	if m == nil || m.budget == nil {
		return false
	}
	m.finished++
	if rec.Err != nil {
		m.failed++
	}
	return float64(m.failed) > m.budget.MaxRate*float64(max(m.finished, m.floor))
}

// BudgetExceeded is a run abandoned by its error budget: what finished is
// kept and written, and the run exits 3.
type BudgetExceeded struct {
	Failed, Finished int
	MaxRate          float64
	// Common is the most frequent error of the point.
	Common metrics.ErrorCount
}

func (e *BudgetExceeded) Error() string {
	return fmt.Sprintf("error budget exceeded: %d of %d requests failed (%.1f%%, budget %s); most common (%d times): %s; the run stopped and what finished is written",
		e.Failed, e.Finished, 100*float64(e.Failed)/float64(max(e.Finished, 1)), plan.Percent(e.MaxRate), e.Common.Count, DescribeError(e.Common))
}

// FailureClass makes an exceeded budget exit 3 (SPEC §1).
func (*BudgetExceeded) FailureClass() failure.Class { return failure.Run }

// DescribeError is an error group in words: its class, HTTP status when it
// has one, and message.
func DescribeError(e metrics.ErrorCount) string {
	what := string(e.Class)
	if e.Status != 0 {
		what += " " + strconv.Itoa(e.Status)
	}
	return what + ": " + e.Message
}

// DefaultErrorAlarm is the share of a point's finished requests that may
// fail before a run that judges its errors nowhere — no error budget, no
// error_rate gate at the point — fails with exit 3 after it is written.
//
// k6 and AIPerf exit 0 whatever share of requests failed unless the user
// wrote a threshold: a server killed mid-run then "passes" a CI job whose
// latency gates judged the few requests that survived. Stopping on the
// first failure (GenAI-Perf) is the other extreme, which SPEC §11 rules
// out: failures are data, so the run is never stopped, only judged when it
// ends. One request in ten failing is well above what a healthy server
// under load gives (an occasional timeout or 429) and well below a dead
// replica (half) or a dead server (nearly all), so it separates "a few
// errors worth a look" from "the numbers describe a server that was not
// serving". A user who expects more errors says so with error_budget= /
// --max-error-rate (100% accepts any share) or an error_rate gate.
const DefaultErrorAlarm = 0.10

// ErrorAlarm is a point whose failed share passed DefaultErrorAlarm while
// nothing the user set judged its errors. Rates are percentages, as in
// summary.json.
type ErrorAlarm struct {
	Experiment string  `json:"experiment"`
	Point      string  `json:"point"`
	Failed     int     `json:"failed"`
	Finished   int     `json:"finished"`
	ErrorRate  float64 `json:"error_rate"`
	Limit      float64 `json:"limit"`
	// MostCommon is the point's most frequent error in words.
	MostCommon string `json:"most_common_error"`
}

// ErrorAlarms are the points of results that failed the default error
// budget, in run order; nil when none did. An experiment with an error
// budget, and a point where an error_rate gate was judged, are the
// user's to judge and never raise one.
func ErrorAlarms(results []ExperimentResult) []ErrorAlarm {
	var out []ErrorAlarm
	for i := range results {
		res := &results[i]
		if res.Experiment != nil && res.Experiment.ErrorBudget != nil {
			continue
		}
		for j := range res.Points {
			if a, ok := pointAlarm(&res.Points[j]); ok {
				if res.Experiment != nil {
					a.Experiment = res.Experiment.Name
				}
				out = append(out, a)
			}
		}
	}
	return out
}

// pointAlarm judges one point, its repeats pooled, against the default
// budget.
func pointAlarm(p *PointResult) (ErrorAlarm, bool) {
	for _, g := range p.Gates {
		if g.Gate.Metric == metrics.ErrorRate {
			return ErrorAlarm{}, false
		}
	}
	a := ErrorAlarm{Point: p.Params.Label(), Limit: 100 * DefaultErrorAlarm}
	var common metrics.ErrorCount
	for _, out := range p.Repeats {
		if out == nil {
			continue
		}
		a.Failed += out.Summary.Failed
		a.Finished += out.Summary.Failed + out.Summary.Completed
		for _, e := range out.Summary.Errors {
			if e.Count > common.Count {
				common = e
			}
		}
	}
	if a.Finished == 0 || float64(a.Failed) <= DefaultErrorAlarm*float64(a.Finished) {
		return ErrorAlarm{}, false
	}
	a.ErrorRate = 100 * float64(a.Failed) / float64(a.Finished)
	a.MostCommon = fmt.Sprintf("%s (%d times)", DescribeError(common), common.Count)
	return a, true
}

// String is the alarm in one line.
func (a ErrorAlarm) String() string {
	where := a.Point
	if a.Experiment != "" {
		where = a.Experiment + "/" + a.Point
	}
	return fmt.Sprintf("%s: %d of %d requests failed (%.1f%%); most common: %s", where, a.Failed, a.Finished, a.ErrorRate, a.MostCommon)
}

// UnjudgedErrors fails a run with ErrorAlarms (exit 3): its results are
// written, but a run whose requests mostly failed is not a measurement a
// CI job may pass on.
type UnjudgedErrors struct{ Alarms []ErrorAlarm }

func (e *UnjudgedErrors) Error() string {
	lines := make([]string, len(e.Alarms))
	for i, a := range e.Alarms {
		lines[i] = a.String()
	}
	return fmt.Sprintf("too many requests failed, over the default error budget of %s with no error_rate gate or error budget set: %s. "+
		"Everything measured is written, but its latencies describe only the requests that succeeded; to accept failures, "+
		"set an error budget (--max-error-rate 100%% in profile and analyze, error_budget=\"100%%\" in a scenario) or, in a scenario, "+
		"gate them (\"error_rate < 20%%\")",
		plan.Percent(DefaultErrorAlarm), strings.Join(lines, " | "))
}

// FailureClass makes unjudged errors exit 3 (SPEC §1).
func (*UnjudgedErrors) FailureClass() failure.Class { return failure.Run }

// CheckErrors is the run failure of results' ErrorAlarms, nil when there
// are none.
func CheckErrors(results []ExperimentResult) error {
	if alarms := ErrorAlarms(results); len(alarms) > 0 {
		return &UnjudgedErrors{Alarms: alarms}
	}
	return nil
}

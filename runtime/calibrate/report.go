package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is a scenario calibration's result, gate by gate.
type Report struct {
	Scenario string `json:"scenario"`
	Slowdown string `json:"slowdown"`
	// Pairs is N: A/A pairs and slowed pairs each; Runs the runs judged.
	Pairs   int    `json:"pairs"`
	Runs    int    `json:"runs"`
	Machine string `json:"machine"`
	// Requests and FailedRequests count the measured requests of every
	// run and those that failed: a failed request has no latency, and
	// the runs are judged as they are, as `run --baseline` judges them.
	Requests       int          `json:"requests"`
	FailedRequests int          `json:"failed_requests"`
	Gates          []GateReport `json:"gates"`
}

// GateReport is one baseline gate at one point.
type GateReport struct {
	Experiment string  `json:"experiment"`
	Point      string  `json:"point"`
	Gate       string  `json:"gate"`
	Tolerance  float64 `json:"tolerance"`
	// FalseAlarms are the A/A pairs the gate failed, Detections the
	// slowed pairs it failed.
	FalseAlarms Proportion `json:"false_alarms"`
	Detections  Proportion `json:"detections"`
	// SlowdownChange is what the slowdown did to the gate's metric (the
	// slowed runs' geometric mean over the unchanged runs'), a fraction
	// in the gate's worse direction.
	SlowdownChange Num `json:"slowdown_change"`
	// PlannedMDC is Gate.PlannedMDC of each A/A pair's baseline (before
	// its candidate was measured), MeasuredMDC the judgment's own; both
	// medians over the A/A pairs.
	PlannedMDC  Num `json:"planned_mdc"`
	MeasuredMDC Num `json:"measured_mdc"`
	// RunSpread is τ, the SD of ln(metric) between the unchanged
	// server's runs beyond what their repeats show (a new server start,
	// another spell of load), RepeatSpread √w, between the repeats of one
	// run; SamplingShare the part of w the requests of a repeat make (the
	// rest is drift between repeats, which more requests cannot remove).
	RunSpread     Num `json:"run_spread"`
	RepeatSpread  Num `json:"repeat_spread"`
	SamplingShare Num `json:"sampling_share"`
	// Repeats and Requests are the scenario's, per side and per repeat.
	// FalseAlarmBound is the model's bound on the false alarms
	// (FalseAlarmBound), to hold the measured rate against.
	FalseAlarmBound Num            `json:"false_alarm_bound"`
	Repeats         int            `json:"repeats"`
	Requests        int            `json:"requests"`
	Recommendation  Recommendation `json:"recommendation"`
}

// Proportion is k of n with its 95% Wilson interval; Inconclusive and Errors
// count the pairs judged inconclusive (passed unless
// --fail-on-inconclusive) and those that could not be judged.
type Proportion struct {
	Failed       int     `json:"failed"`
	Pairs        int     `json:"pairs"`
	Rate         Num     `json:"rate"`
	Low          float64 `json:"wilson95_low"`
	High         float64 `json:"wilson95_high"`
	Inconclusive int     `json:"inconclusive"`
	Errors       int     `json:"errors"`
}

func rateOf(t tally) Proportion {
	lo, hi := Wilson(t.Failed, t.Pairs, Z95)
	r := Proportion{Failed: t.Failed, Pairs: t.Pairs, Rate: Num(math.NaN()), Low: lo, High: hi, Inconclusive: t.Inconclusive, Errors: t.Errors}
	if t.Pairs > 0 {
		r.Rate = Num(float64(t.Failed) / float64(t.Pairs))
	}
	return r
}

// Num is a number JSON writes as null when it is not finite (an MDC of
// +Inf: no change detectable; NaN: not known).
type Num float64

// MarshalJSON writes a finite value as a number, any other as null.
func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// WriteJSON writes the report for machines.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // gates are written with < and >
	return enc.Encode(r)
}

// WriteText writes the report for people: one block per gate.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Calibration of %s: %d A/A pairs and %d pairs slowed by %s (%d runs; %s).\n",
		r.Scenario, r.Pairs, r.Pairs, r.Slowdown, r.Runs, r.Machine)
	b.WriteString("Each pair: one run judged against the unchanged run measured just before it, as `run --baseline` judges.\n")
	fmt.Fprintf(&b, "%d of %d measured requests failed.\n\n", r.FailedRequests, r.Requests)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GATE\tPOINT\tFALSE ALARMS (95% CI)\tDETECTED (95% CI)\tSLOWDOWN MADE\tMDC PLANNED / MEASURED\tSPREAD: RUNS / REPEATS (FROM REQUESTS)\t")
	for _, g := range r.Gates {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\t%s\t%s\t%s / %s\t%s / %s (%s)\t\n", g.Gate, g.Experiment, g.Point,
			rateText(g.FalseAlarms), rateText(g.Detections), Signed(float64(g.SlowdownChange)),
			Unsigned(float64(g.PlannedMDC)), Unsigned(float64(g.MeasuredMDC)), Unsigned(float64(g.RunSpread)), Unsigned(float64(g.RepeatSpread)), Unsigned(float64(g.SamplingShare)))
	}
	tw.Flush()
	b.WriteString("\nTo reach ≤ 1% false alarms and ≥ 90% detection of this slowdown at each gate's tolerance, each size alone (docs/ci.md; –: no such size does, the drift between runs is too wide for it):\n")
	for _, g := range r.Gates {
		fmt.Fprintf(&b, "  %s (%s/%s): %s\n", g.Gate, g.Experiment, g.Point, needs(g))
		fmt.Fprintf(&b, "    as it is (one run a side): %s false alarms predicted by the measured spread (the model's bound); measured %s\n", Unsigned(float64(g.FalseAlarmBound)), Rate0(g.FalseAlarms.Failed, g.FalseAlarms.Pairs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func rateText(r Proportion) string {
	s := fmt.Sprintf("%s (%.0f–%.0f%%)", Rate0(r.Failed, r.Pairs), 100*r.Low, 100*r.High)
	if r.Inconclusive > 0 {
		s += fmt.Sprintf(", %d inconclusive", r.Inconclusive)
	}
	if r.Errors > 0 {
		s += fmt.Sprintf(", %d not judged", r.Errors)
	}
	return s
}

// Rate0 is "k/n = x%" with whole percents.
func Rate0(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %.0f%%", k, n, 100*float64(k)/float64(n))
}

// needs says what Recommendation asks, each size or "–" where none
// reaches the goal.
func needs(g GateReport) string {
	rec := g.Recommendation
	if !(rec.MaxSE > 0) || math.IsNaN(float64(g.RunSpread)) || math.IsNaN(float64(g.RepeatSpread)) {
		return "not known (too few runs to measure the spread)"
	}
	size := func(n int) string {
		if n == 0 {
			return "–"
		}
		return strconv.Itoa(n)
	}
	requests := size(rec.Requests)
	if rec.HalvesDisagree {
		requests = "not predicted"
	}
	s := fmt.Sprintf("runs of %d repeats a side %s · repeats in one run a side %s · history against one run %s · requests a repeat %s (now %d)",
		g.Repeats, size(rec.Runs), size(rec.Repeats), size(rec.History), requests, g.Requests)
	if rec.HalvesDisagree {
		s += fmt.Sprintf("; the halves of a repeat differ more than its repeats do (their variance %s of the repeats'): its requests are not alike (e.g. every second one waits for another's prefill), so more of them need not narrow it", Unsigned(float64(g.SamplingShare)))
	}
	if !rec.Detectable {
		s += fmt.Sprintf("; the slowdown changed this metric by %s, within the tolerance %s, which no size detects 90%% of the time (these sizes are for the false alarms alone)", Signed(float64(g.SlowdownChange)), Pct(g.Tolerance))
	}
	return s
}

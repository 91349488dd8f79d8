package html

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// page is the template's data: every value preformatted as text, so the
// template stays free of logic and number formatting lives in Go.
type page struct {
	Title, Scenario string
	Partial         bool
	Config          []KV
	Check           *checkView
	Verdicts        []verdictRow
	Passed, Failed  int
	Comparison      *comparisonView
	Experiments     []experimentView
	Plots           []plotView
}

// checkView is the check() line and its colour.
type checkView struct {
	Text, Class string
}

type verdictRow struct {
	Mark, Class                      string
	Experiment, Point, Gate, Message string
}

type experimentView struct {
	Name       string
	Config     []KV
	Points     []metricRow
	Sweep      *sweepView
	Components []componentView
	// Stages are, per stages() point, each stage's own metrics.
	Stages   []componentView
	Sessions []sessionView
	// Shards notes, per point merged from shards, each shard's share and
	// the start skew.
	Shards  []string
	Repeats []repeatView
	Errors  []errorRow
	// Telemetry is nil when no point was scraped.
	Telemetry *telemetryView
	// ClientLimited names the points the client, not the server,
	// limited, with the reasons: their numbers measure the client.
	ClientLimited []string
	// Steady says per auto point what the steady-state rule did;
	// NotConverged names the points that hit their cap first.
	Steady, NotConverged []string
	// PrefixCache is each point's server-reported prefix-cache hit share,
	// empty when the server reported no cached tokens; CacheShift warns
	// when those shares differ too much between points (sweep.CacheShift).
	PrefixCache []string
	CacheShift  string
}

// repeatView is the across-repeats statistics of one point run N times.
type repeatView struct {
	Point string
	Runs  int
	Rows  []repeatRow
}

type repeatRow struct {
	Metric, Unit, N, Mean, Stddev, CI, Spread, Flag, FlagClass string
}

// metricRow is one line of headline metrics: a point, or one dataset
// component of a point.
type metricRow struct {
	Name, Requests                     string
	TTFTP50, TTFTP99, ITLP50, ITLP99   string
	LatencyP99, OutputTok, ReqPerSec   string
	Goodput, Errors, Gates, GatesClass string
}

type componentView struct {
	Point string
	Rows  []metricRow
}

type errorRow struct {
	Point, Class, Status, Message, Count string
}

// buildPage turns the report into preformatted rows and embedded images.
func buildPage(rep Report) (*page, error) {
	p := &page{Title: rep.Title, Scenario: rep.Scenario, Partial: rep.Partial, Config: rep.Config,
		Check: newCheckView(rep.Check), Comparison: newComparisonView(rep.Comparison)}
	if p.Title == "" {
		p.Title = "llmbench report"
	}
	for _, v := range rep.Verdicts {
		p.Verdicts = append(p.Verdicts, newVerdictRow(v))
	}
	p.Failed = verdict.Failed(rep.Verdicts)
	p.Passed = len(rep.Verdicts) - p.Failed
	for i := range rep.Results {
		ev, err := newExperimentView(&rep.Results[i])
		if err != nil {
			return nil, err
		}
		if err := embedTelemetryPlots(&ev, rep.Telemetry[experimentName(&rep.Results[i])]); err != nil {
			return nil, err
		}
		p.Experiments = append(p.Experiments, ev)
	}
	plots, err := embedPlots(rep.Plots)
	if err != nil {
		return nil, err
	}
	p.Plots = plots
	return p, nil
}

// newCheckView colours the check() line like a gate; nil when unreported.
func newCheckView(c verdict.CheckState) *checkView {
	text := "check(): " + string(c)
	switch c {
	case "":
		return nil
	case verdict.CheckPassed:
		return &checkView{Text: text, Class: "pass"}
	case verdict.CheckFailed:
		return &checkView{Text: text, Class: "fail"}
	}
	return &checkView{Text: text, Class: "muted"}
}

func newVerdictRow(v verdict.Verdict) verdictRow {
	r := verdictRow{Mark: "✓", Class: "pass", Experiment: v.Experiment, Point: v.Point,
		Gate: v.Gate, Message: v.Message}
	switch {
	case !v.Passed:
		r.Mark, r.Class = "✗", "fail"
	case v.Skipped != "":
		r.Mark, r.Class = "–", "muted"
	case v.Warning != "":
		r.Mark, r.Class, r.Message = "?", "warn", v.Message+" — "+v.Warning
	}
	return r
}

// newExperimentView gathers one experiment's tables. The sweep table is
// sweep.TableOf, the console's, so the page says exactly what the
// console said about the knee and saturation.
func newExperimentView(res *runtime.ExperimentResult) (experimentView, error) {
	ev := experimentView{Config: experimentConfig(res.Experiment)}
	if res.Experiment != nil {
		ev.Name = res.Experiment.Name
	}
	for i := range res.Points {
		pt := &res.Points[i]
		if pt.Outcome == nil {
			continue
		}
		row := newMetricRow(pt.Params.Label(), &pt.Outcome.Summary)
		row.Gates, row.GatesClass = gateCell(pt.Gates)
		ev.Points = append(ev.Points, row)
		if c := pt.Outcome.Summary.Client; c != nil && c.Limited {
			ev.ClientLimited = append(ev.ClientLimited, pt.Params.Label()+": "+strings.Join(c.Reasons, "; "))
		}
		if s := pt.Outcome.Steady; s != nil && s.Converged {
			ev.Steady = append(ev.Steady, pt.Params.Label()+": "+s.Summary())
		} else if s != nil {
			ev.NotConverged = append(ev.NotConverged, pt.Params.Label()+": "+s.Summary())
		}
		if cv, ok := newComponentView(pt); ok {
			ev.Components = append(ev.Components, cv)
		}
		if sv, ok := newStageView(pt); ok {
			ev.Stages = append(ev.Stages, sv)
		}
		if sv, ok := newSessionView(pt); ok {
			ev.Sessions = append(ev.Sessions, sv)
		}
		if note := shardNote(pt); note != "" {
			ev.Shards = append(ev.Shards, note)
		}
		if len(pt.Repeats) > 1 {
			ev.Repeats = append(ev.Repeats, newRepeatView(pt))
		}
		ev.Errors = append(ev.Errors, errorRows(pt.Params.Label(), pt.Outcome.Summary.Errors)...)
	}
	ev.PrefixCache = prefixCacheLines(res)
	if len(res.Points) > 1 {
		ev.Sweep = newSweepView(res)
		ev.CacheShift = sweep.CacheShiftWarning(res, res.Analysis().Param)
	}
	ev.Telemetry = newTelemetryView(res)
	return ev, nil
}

// gateCell summarizes a point's gates as "✓ 2/2" or "✗ 1/2" passed.
func gateCell(gs []runtime.GateResult) (string, string) {
	if len(gs) == 0 {
		return "–", ""
	}
	passed := 0
	for _, g := range gs {
		if g.Passed {
			passed++
		}
	}
	if passed == len(gs) {
		return fmt.Sprintf("✓ %d/%d", passed, len(gs)), "pass"
	}
	return fmt.Sprintf("✗ %d/%d", passed, len(gs)), "fail"
}

func errorRows(point string, errs []metrics.ErrorCount) []errorRow {
	rows := make([]errorRow, 0, len(errs))
	for _, e := range errs {
		status := "–"
		if e.Status != 0 {
			status = fmt.Sprint(e.Status)
		}
		rows = append(rows, errorRow{Point: point, Class: string(e.Class), Status: status,
			Message: strings.TrimSpace(e.Message), Count: fmt.Sprint(e.Count)})
	}
	return rows
}

// newRepeatView lists each headline metric's mean, stddev, 95% confidence
// interval and spread over a point's repeats, flagging the metrics whose
// repeats disagree by more than 10%: one run is a data point, three are a
// number, and a reader must see when they are not.
func newRepeatView(pt *runtime.PointResult) repeatView {
	rv := repeatView{Point: pt.Params.Label(), Runs: len(pt.Repeats)}
	for _, name := range metrics.HeadlineNames() {
		st, ok := pt.RepeatStats[name]
		if !ok {
			continue
		}
		scale, unit := repeatUnit(name)
		row := repeatRow{Metric: name, Unit: unit, N: fmt.Sprint(st.N),
			Mean: num(st.Mean * scale), Stddev: num(st.Stddev * scale),
			CI:     "[" + num(st.CILow*scale) + ", " + num(st.CIHigh*scale) + "]",
			Spread: num(st.Spread*100) + "%", Flag: "✓", FlagClass: "pass"}
		if st.Disagree {
			row.Flag, row.FlagClass = "✗ repeats disagree", "fail"
		}
		rv.Rows = append(rv.Rows, row)
	}
	return rv
}

// repeatUnit is the factor from a headline metric's native unit to
// report units, and that unit, from the catalogue.
func repeatUnit(name string) (float64, string) {
	m := metrics.HeadlineMetric(name)
	if m == nil {
		return 1, ""
	}
	return m.Scale(), m.Unit
}

// num prints a statistic with 2 decimals; NaN (one repeat measured it)
// as a dash.
func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

// prefixCacheLines says, per point, how much of its prompts the server
// served from its prefix cache (pooled over repeats, as summary.json).
func prefixCacheLines(res *runtime.ExperimentResult) []string {
	var lines []string
	for i := range res.Points {
		if c := sweep.PointPrefixCache(&res.Points[i]); c != nil {
			lines = append(lines, fmt.Sprintf("%s: %.1f%% of %d prompt tokens (%d requests reporting)",
				res.Points[i].Params.Label(), 100*c.Share, c.PromptTokens, c.Requests))
		}
	}
	return lines
}

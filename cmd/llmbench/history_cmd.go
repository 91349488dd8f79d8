package main

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/storedrun"
)

// historyCmd is a folder of runs in time order, no baseline needed: the
// trend table of every point and metric against the oldest run, with the
// change points where a metric's level shifted (docs/compare.md, "Change
// points"). It judges nothing: exit 0 whatever it finds.
type historyCmd struct {
	Dir string `arg:"" name:"dir" help:"A folder of runs (a history): each subfolder holding a run's records or a GenAI-Perf export is one run, ordered by when it started."`

	MaxRegression []string `default:"10%" sep:"," help:"Tolerance of each run's comparison with the oldest, as compare takes it (10%, or itl.p99=5%)."`
	Metrics       []string `sep:"," help:"Metrics to follow, named as gates name them (default: compare's)."`
	Confidence    float64  `default:"0.95" help:"Level of the comparisons' one-sided bounds, in (0, 1)."`
	Force         bool     `help:"Compare runs that are not comparable (another model, dataset...), with a warning per difference."`
	JSON          string   `name:"json" type:"path" help:"Also write compare.json of the newest run against the oldest, with the change points (docs/compare.md), to this file."`
	SummaryMd     string   `name:"summary-md" type:"path" help:"Also write a Markdown summary with the change points to this file."`
	PlotDir       string   `name:"plot-dir" type:"path" help:"Also draw a trend plot (PNG) per point and metric into this folder, the levels between change points as a step line."`
	Tokenizer     string   `help:"Tokenizer for counting the tokens of imported GenAI-Perf exports."`
	changeFlags
}

// changeFlags tune the change point detector, for history and for
// compare with several runs.
type changeFlags struct {
	ChangePValue       float64 `name:"change-p-value" default:"0.001" help:"Significance a change point must reach (Student's t-test of the runs either side), in (0, 1)."`
	ChangeMinMagnitude string  `name:"change-min-magnitude" default:"5%" help:"Smallest shift of level reported as a change point (5% or 0.05; 0 reports every significant one)."`
	ChangeWindow       int     `name:"change-window" default:"50" help:"Runs each split step of the detector looks at together (at least 3)."`
}

// options are the detector's options the flags give.
func (f changeFlags) options() (metrics.ChangePointOptions, error) {
	mag, err := parseTolerance(f.ChangeMinMagnitude)
	if err != nil {
		return metrics.ChangePointOptions{}, invalid("--change-min-magnitude: %w", err)
	}
	opt := metrics.ChangePointOptions{Window: f.ChangeWindow, MaxPValue: f.ChangePValue, MinMagnitude: mag}
	switch {
	case f.ChangeWindow < 3:
		return opt, invalid("--change-window: got %d, want at least 3 runs", f.ChangeWindow)
	case !(f.ChangePValue > 0 && f.ChangePValue < 1):
		return opt, invalid("--change-p-value: got %g, want a level in (0, 1) such as 0.001", f.ChangePValue)
	}
	return opt, opt.Validate()
}

func (h *historyCmd) Run(e *env) error {
	judging := compareCmd{MaxRegression: h.MaxRegression, Metrics: h.Metrics, Confidence: h.Confidence}
	opt, err := judging.options()
	if err != nil {
		return err
	}
	detect, err := h.options()
	if err != nil {
		return err
	}
	if err := checkApart([]outPath{{"--json", h.JSON}, {"--summary-md", h.SummaryMd}, {"--plot-dir", h.PlotDir}}, h.Dir); err != nil {
		return err
	}
	runs, err := storedrun.LoadHistory(h.Dir, storedrun.Options{Stderr: e.stderr, Import: storedrun.ImportOptions{Tokenizer: h.Tokenizer}})
	if err != nil {
		return err
	}
	if len(runs) < 2 {
		return invalid("%s: one run, not a history: llmbench history wants a folder of two or more runs (one subfolder each); to compare one run with another, llmbench compare BASELINE CANDIDATE", h.Dir)
	}
	history, err := regression.AgainstOldest(runs, opt, h.Force, detect)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d runs, oldest first; each later one compared with the oldest, %s.\n", h.Dir, len(runs), runs[0].Path)
	if err := comparison.Trend(history)(e.stdout); err != nil {
		return err
	}
	for _, w := range regression.Warnings(history) {
		fmt.Fprintf(e.stderr, "llmbench: warning: %s\n", w)
	}
	out := compareCmd{JSON: h.JSON, SummaryMd: h.SummaryMd, PlotDir: h.PlotDir}
	if err := out.plot(e.stdout, history); err != nil {
		return err
	}
	return out.write(history[len(history)-1])
}

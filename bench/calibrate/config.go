package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"time"

	runplan "github.com/llmbench/llmbench/runtime/plan"
)

// config is what one calibration measures and how each run looks. Its
// measurement part is saved in the store, so runs added later (a resumed
// calibration) are made exactly as the ones before them.
type config struct {
	measure
	// SameRuns, EffectRuns, ShiftRuns and HistoryRuns size the pools
	// (plan.go); a pool grown later keeps the runs it has.
	SameRuns, EffectRuns, ShiftRuns, HistoryRuns int
	// Pairs is how many same-server pairs are drawn for each setup's
	// false-alarm count (simulator).
	Pairs int
	// Tolerance is every gate's (--max-regression; 0.10 is
	// itl.p50 <= baseline * 1.10).
	Tolerance float64
	// ProxyITL is the slowdown of a real server's slowed candidates.
	ProxyITL float64

	store, out, csv, runsCSV, before, doc, docSection string
	judgeOnly                                         bool
	// maxLoad judges only the runs that started at a 1-minute load
	// average of at most it (0: all).
	maxLoad float64
}

// measure is how every run is made; a store refuses runs made otherwise.
type measure struct {
	Target string // "sim" or an OpenAI base URL
	Model  string
	// Tokenizer, when set, makes prompts token-exact and counts tokens
	// with it, as endpoint(tokenizer=...) does.
	Tokenizer   string
	Requests    int
	Warmup      int
	Concurrency int
	// InputTokens is the mean of a normal(mean, mean/10) prompt length.
	InputTokens int
	// OutputTokens is every request's max_tokens.
	OutputTokens int
	Seed         int64
	// Sim is the simulated server of -target sim (the baseline's timings).
	Sim simTimings
}

// simTimings are the simulator knobs of the baseline server.
type simTimings struct {
	TTFT, PrefillPerToken, ITL, ITLPerSeq time.Duration
	// Jitter is the spread of every delay within a run, Drift the σ of
	// the lognormal speed factor each simulator start draws (run-to-run
	// variation).
	Jitter, Drift float64
}

func (c config) isSim() bool { return c.Target == "sim" }

// parseFlags reads the command line.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.StringVar(&c.Target, "target", "sim", `"sim" (a fresh built-in simulator per run, on 127.0.0.1) or an OpenAI base URL such as http://127.0.0.1:11434/v1`)
	fs.StringVar(&c.Model, "model", "llmbench-sim", "model name sent in requests")
	fs.StringVar(&c.Tokenizer, "tokenizer", "", "tokenizer.json file or folder (or Hugging Face id) for token-exact prompts and token counts; default: prompts of words, tokens from the server's usage")
	fs.IntVar(&c.Requests, "requests", 300, "measured requests per run")
	fs.IntVar(&c.Warmup, "warmup", 8, "warm-up requests per run, not measured")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "closed-loop concurrency")
	fs.IntVar(&c.InputTokens, "input-tokens", 128, "mean prompt length (normal, sd = mean/10)")
	fs.IntVar(&c.OutputTokens, "output-tokens", 16, "max_tokens of every request")
	fs.Int64Var(&c.Seed, "seed", 1, "seeds of the simulator, its drift and the prompts derive from it")
	fs.DurationVar(&c.Sim.TTFT, "sim-ttft", 10*time.Millisecond, "simulator: fixed prefill time")
	fs.DurationVar(&c.Sim.PrefillPerToken, "sim-prefill-per-token", 20*time.Microsecond, "simulator: prefill per input token")
	fs.DurationVar(&c.Sim.ITL, "sim-itl", 2*time.Millisecond, "simulator: ITL with one sequence decoding")
	fs.DurationVar(&c.Sim.ITLPerSeq, "sim-itl-per-seq", 250*time.Microsecond, "simulator: ITL added per other sequence decoding")
	fs.Float64Var(&c.Sim.Jitter, "sim-jitter", 0.05, "simulator: relative jitter of every delay within a run")
	fs.Float64Var(&c.Sim.Drift, "sim-drift", 0.05, "simulator: σ of the lognormal speed factor of each start (run-to-run drift)")
	fs.IntVar(&c.SameRuns, "same-runs", 120, "runs of the unchanged server (simulator: the pool history, candidates and false-alarm pairs are drawn from; real: same-server candidates)")
	fs.IntVar(&c.EffectRuns, "effect-runs", 40, "runs of each changed server")
	fs.IntVar(&c.ShiftRuns, "shift-runs", 50, "simulator: runs with the whole TTFT distribution ×2, each paired with one unchanged run")
	fs.IntVar(&c.HistoryRuns, "history-runs", 5, "real server: baseline history runs, measured first")
	fs.IntVar(&c.Pairs, "pairs", 300, "simulator: same-server pairs drawn per setup for the false alarms")
	tol := fs.String("tolerance", "10%", "every gate's tolerance (itl.p50 <= baseline * (1 + tolerance))")
	proxy := fs.String("proxy-itl", "25%", "real server: ITL slowdown of the slowed candidates (slowdown proxy)")
	fs.StringVar(&c.store, "store", "", "folder of measured runs: runs already in it are kept (an interrupted calibration resumes), missing ones measured")
	fs.BoolVar(&c.judgeOnly, "judge-only", false, "judge the runs in -store without measuring any")
	fs.Float64Var(&c.maxLoad, "max-load", 0, "judge only the runs that started at a 1-minute load average of at most this (what a quieter machine would have given); 0 judges all")
	fs.StringVar(&c.out, "out", "", "also write the Markdown tables to this file")
	fs.StringVar(&c.csv, "csv", "", "also write the table rows as CSV to this file")
	fs.StringVar(&c.before, "before", "", "a -csv file of an earlier judge on the same runs: its rates become the tables' before column")
	fs.StringVar(&c.doc, "doc", "", "also replace the tables between this file's <!-- SECTION --> and <!-- /SECTION --> lines (-doc-section) by the new ones")
	fs.StringVar(&c.docSection, "doc-section", "", "the marker name of -doc; default calibrate:sim, or calibrate:real for a real server")
	fs.StringVar(&c.runsCSV, "runs-csv", "", "also write one CSV row per run (pool, seed, drift factor, headline values) to this file")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if c.Tolerance, err = runplan.ParseShare(*tol); err != nil {
		return c, fmt.Errorf("-tolerance: %w", err)
	}
	if c.ProxyITL, err = runplan.ParseShare(*proxy); err != nil {
		return c, fmt.Errorf("-proxy-itl: %w", err)
	}
	return c, c.validate()
}

func (c config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Requests < 1 || c.Concurrency < 1 || c.Warmup < 0 || c.InputTokens < 1 || c.OutputTokens < 2 {
		bad("-requests, -concurrency, -input-tokens must be ≥ 1, -output-tokens ≥ 2 (an ITL needs two tokens), -warmup ≥ 0")
	}
	if !(c.Tolerance > 0 && c.Tolerance < 0.5) {
		bad("-tolerance %g: want a share in (0, 50%%) (a throughput drop of twice it must stay above 0)", c.Tolerance)
	}
	if !(c.ProxyITL > 0) {
		bad("-proxy-itl %g: want a share > 0", c.ProxyITL)
	}
	if c.Sim.Jitter < 0 || c.Sim.Jitter > 1 || c.Sim.Drift < 0 {
		bad("-sim-jitter must be in [0, 1] and -sim-drift ≥ 0")
	}
	if c.isSim() && (c.SameRuns < 7 || c.EffectRuns < 3 || c.ShiftRuns < 1 || c.ShiftRuns > c.SameRuns || c.Pairs < 1) {
		bad("simulator: -same-runs ≥ 7 (a pair of 3 against 3 and one spare), -effect-runs ≥ 3, 1 ≤ -shift-runs ≤ -same-runs, -pairs ≥ 1")
	}
	if !c.isSim() && (c.HistoryRuns < 1 || c.SameRuns < 1 || c.EffectRuns < 1) {
		bad("real server: -history-runs, -same-runs and -effect-runs must be ≥ 1")
	}
	if c.store == "" && c.judgeOnly {
		bad("-judge-only needs -store")
	}
	return errors.Join(errs...)
}

// pools are this calibration's pools.
func (c config) pools() []pool {
	if c.isSim() {
		return simPools(c)
	}
	return realPools(c)
}

// describe is the setup in one line, for progress output and the tables.
func (m measure) describe() string {
	target := fmt.Sprintf("the built-in simulator (ttft %s + %s per prompt token, itl %s + %s per other sequence, jitter ±%s within a run, drift lognormal σ = %s per start, a fresh start per run)",
		m.Sim.TTFT, m.Sim.PrefillPerToken, m.Sim.ITL, m.Sim.ITLPerSeq, calibrate.Pct(m.Sim.Jitter), calibrate.Pct(m.Sim.Drift))
	if m.Target != "sim" {
		target = m.Target + " model " + m.Model
	}
	if m.Tokenizer != "" {
		target += ", tokenizer " + m.Tokenizer
	}
	return fmt.Sprintf("%s; concurrency %d, %d requests (+%d warm-up) per run, input normal(%d, %d) tokens, output %d tokens",
		target, m.Concurrency, m.Requests, m.Warmup, m.InputTokens, max(m.InputTokens/10, 1), m.OutputTokens)
}

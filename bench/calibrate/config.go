package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	runplan "github.com/llmbench/llmbench/runtime/plan"
)

// config is what one calibration measures and how each run looks. It is
// saved with the runs (-save), so a table re-judged from a file (-load)
// describes the runs it was made from.
type config struct {
	Target string // "sim" or an OpenAI base URL
	Model  string
	// Tokenizer, when set, makes prompts token-exact and counts tokens
	// with it, as endpoint(tokenizer=...) does.
	Tokenizer   string
	Pairs       int // pairs per one-repeat cell (see plan)
	Requests    int
	Warmup      int
	Concurrency int
	InputTokens int // mean of a normal(mean, mean/10) prompt length
	// OutputTokens is every request's max_tokens.
	OutputTokens int
	Repeats      []int
	Slowdowns    []float64 // relative ITL slowdowns of the candidate server
	Tolerances   []float64
	Seed         int64
	// Sim is the simulated server of -target sim (baseline timings).
	Sim simTimings

	out, save, load, runsCSV string
}

// simTimings are the simulator knobs a run uses; the candidate's ITL and
// ITL-per-sequence are scaled by 1 + slowdown.
type simTimings struct {
	TTFT, PrefillPerToken, ITL, ITLPerSeq time.Duration
	Jitter                                float64
}

func (c config) isSim() bool { return c.Target == "sim" }

// parseFlags reads the command line; every list flag is comma-separated.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.StringVar(&c.Target, "target", "sim", `"sim" (a fresh built-in simulator per run, on 127.0.0.1) or an OpenAI base URL such as http://127.0.0.1:11434/v1`)
	fs.StringVar(&c.Model, "model", "llmbench-sim", "model name sent in requests")
	fs.StringVar(&c.Tokenizer, "tokenizer", "", "tokenizer.json file or folder (or Hugging Face id) for token-exact prompts and token counts; default: prompts of words, tokens from the server's usage")
	fs.IntVar(&c.Pairs, "pairs", 150, "pairs per one-repeat cell; a round gives max(-repeats) of them, and one pair to each cell of r repeats per r runs")
	fs.IntVar(&c.Requests, "requests", 150, "measured requests per run")
	fs.IntVar(&c.Warmup, "warmup", 8, "warm-up requests per run, not measured")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "closed-loop concurrency")
	fs.IntVar(&c.InputTokens, "input-tokens", 128, "mean prompt length (normal, sd = mean/10)")
	fs.IntVar(&c.OutputTokens, "output-tokens", 16, "max_tokens of every request")
	repeats := fs.String("repeats", "1,3", "repeats per side to judge with (1: bootstrap, ≥2: Welch)")
	slow := fs.String("slowdown", "5%,15%", `ITL slowdowns of the candidate server (simulator only); "" for false alarms alone`)
	tols := fs.String("tolerance", "0,10%", "tolerances (--max-regression) to judge at")
	fs.Int64Var(&c.Seed, "seed", 1, "run k (from 0) uses simulator seed and dataset seed -seed + k")
	fs.DurationVar(&c.Sim.TTFT, "sim-ttft", 10*time.Millisecond, "simulator: fixed prefill time")
	fs.DurationVar(&c.Sim.PrefillPerToken, "sim-prefill-per-token", 20*time.Microsecond, "simulator: prefill per input token")
	fs.DurationVar(&c.Sim.ITL, "sim-itl", 2*time.Millisecond, "simulator: ITL with one sequence decoding")
	fs.DurationVar(&c.Sim.ITLPerSeq, "sim-itl-per-seq", 250*time.Microsecond, "simulator: ITL added per other sequence decoding")
	fs.Float64Var(&c.Sim.Jitter, "sim-jitter", 0.05, "simulator: relative jitter of every delay")
	fs.StringVar(&c.out, "out", "", "also write the Markdown table to this file")
	fs.StringVar(&c.save, "save", "", "save every measured run (records) to this file, to re-judge with -load")
	fs.StringVar(&c.runsCSV, "runs-csv", "", "also write one CSV row per run (headline values, start time) to this file")
	fs.StringVar(&c.load, "load", "", "judge the runs saved in this file instead of measuring")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if c.Repeats, err = parseInts(*repeats); err != nil {
		return c, fmt.Errorf("-repeats: %w", err)
	}
	if c.Slowdowns, err = parseShares(*slow); err != nil {
		return c, fmt.Errorf("-slowdown: %w", err)
	}
	if c.Tolerances, err = parseShares(*tols); err != nil {
		return c, fmt.Errorf("-tolerance: %w", err)
	}
	return c, c.validate()
}

func (c config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Pairs < 1 || c.Requests < 1 || c.Concurrency < 1 || c.Warmup < 0 || c.InputTokens < 1 || c.OutputTokens < 2 {
		bad("-pairs, -requests, -concurrency, -input-tokens must be ≥ 1, -output-tokens ≥ 2 (an ITL needs two tokens), -warmup ≥ 0")
	}
	if len(c.Repeats) == 0 || slices.Min(c.Repeats) < 1 {
		bad("-repeats: want one or more counts ≥ 1")
	}
	if len(c.Tolerances) == 0 {
		bad("-tolerance: want one or more tolerances")
	}
	if !c.isSim() && len(c.Slowdowns) > 0 {
		bad(`-slowdown: a real server cannot be slowed on cue; give -slowdown "" with -target %s`, c.Target)
	}
	for _, t := range c.Tolerances {
		if !(t >= 0 && t < 1) {
			bad("-tolerance %g: want a share in [0, 1)", t)
		}
	}
	for _, s := range c.Slowdowns {
		if !(s > 0) {
			bad("-slowdown %g: want a share > 0", s)
		}
	}
	return errors.Join(errs...)
}

// restoreFrom takes the measurement settings of saved runs, keeping this
// command line's judging settings (tolerances) and outputs.
func (c *config) restoreFrom(saved config) {
	tols, out, csv := c.Tolerances, c.out, c.runsCSV
	*c = saved
	c.Tolerances, c.out, c.runsCSV = tols, out, csv
}

// describe is the setup in one line, for progress output and the table.
func (c config) describe() string {
	target := "the built-in simulator (ttft " + c.Sim.TTFT.String() + ", itl " + c.Sim.ITL.String() +
		" + " + c.Sim.ITLPerSeq.String() + " per other sequence, jitter " + pct(c.Sim.Jitter) + ", a new seed per run)"
	if !c.isSim() {
		target = c.Target + " model " + c.Model
	}
	if c.Tokenizer != "" {
		target += ", tokenizer " + c.Tokenizer
	}
	return fmt.Sprintf("%s; concurrency %d, %d requests (+%d warm-up) per run, input normal(%d, %d) tokens, output %d tokens",
		target, c.Concurrency, c.Requests, c.Warmup, c.InputTokens, max(c.InputTokens/10, 1), c.OutputTokens)
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseShares reads "5%,15%" or "0.05,0.15" as runtime.ParseShare reads
// compare's --max-regression.
func parseShares(s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := runplan.ParseShare(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

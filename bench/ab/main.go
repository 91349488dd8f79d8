// Command ab measures what interleaved A/B runs buy over sequential ones
// (docs/compare.md, "A/B"): against a server whose speed drifts during
// the run, it judges same-vs-same pairs (false alarms) and pairs whose
// candidate is slowed by the slowdown proxy (detections), each both as
// an interleaved A/B run (runtime/ab, paired over rounds) and as two
// sequential runs of the same length, one per side, judged by the usual
// judge. Every pair is judged exactly as `llmbench run` judges a point's
// baseline gate (metrics.JudgePoint).
//
//	go run ./bench/ab -pairs 200 -csv out/ab/sim.csv          # simulator, sine drift
//	go run ./bench/ab -target http://127.0.0.1:11434/v1 -model tiny -pairs 30 -csv out/ab/ollama.csv
//
// Trials are appended to the CSV as they end and a rerun skips those it
// holds, so a measurement resumes where it stopped.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/ab"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
	"github.com/llmbench/llmbench/transport/slowdown"
)

type config struct {
	target, model, drift, gate, slow, csvPath string
	mode                                      string
	pairs, seqPairs, requests, concurrency    int
	rounds                                    int
	warmup, inputTokens, outputTokens         int
	itl                                       time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.target, "target", "sim", "sim (an in-process simulator with -drift) or a server's OpenAI base URL")
	flag.StringVar(&c.model, "model", "llmbench-sim", "model name")
	flag.StringVar(&c.drift, "drift", "sine(10%,20s)", "the simulator's drift (sim --drift)")
	flag.StringVar(&c.gate, "gate", "itl.p50 <= baseline * 1.02", "the baseline gate judged")
	flag.StringVar(&c.slow, "slowdown", "itl=5%", "the candidate's slowdown in detection trials (slowdown.ParseShares)")
	flag.StringVar(&c.csvPath, "csv", "out/ab/sim.csv", "trials, appended as they end (resumable)")
	flag.IntVar(&c.pairs, "pairs", 200, "pairs per interleaved condition (A/A and A/B)")
	flag.IntVar(&c.seqPairs, "sequential-pairs", -1, "pairs per sequential condition, the first ones (default: -pairs)")
	flag.IntVar(&c.requests, "requests", 96, "measured requests per side")
	flag.IntVar(&c.concurrency, "concurrency", 8, "requests in flight")
	flag.IntVar(&c.rounds, "rounds", 8, "A/B rounds per side")
	flag.StringVar(&c.mode, "mode", "abba", "A/B mode: abba or duet")
	flag.IntVar(&c.warmup, "warmup", 8, "warm-up requests per side")
	flag.IntVar(&c.inputTokens, "input-tokens", 64, "prompt length")
	flag.IntVar(&c.outputTokens, "output-tokens", 24, "output length")
	flag.DurationVar(&c.itl, "itl", 4*time.Millisecond, "the simulator's ITL")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "ab:", err)
		os.Exit(1)
	}
}

// The four conditions, each trial one of them in turn.
var conditions = []struct {
	name        string
	interleaved bool
	slowed      bool
}{
	{"interleaved A/A", true, false}, {"interleaved A/B", true, true},
	{"sequential A/A", false, false}, {"sequential A/B", false, true},
}

func run(ctx context.Context, c config) error {
	gate, err := metrics.ParseGate(c.gate)
	if err != nil {
		return err
	}
	shares, err := slowdown.ParseShares(c.slow)
	if err != nil {
		return err
	}
	done, err := readTrials(c.csvPath)
	if err != nil {
		return err
	}
	base, stopTarget, err := startTarget(c)
	if err != nil {
		return err
	}
	defer stopTarget()
	// Every side goes through a proxy (share 0 when unchanged), so the
	// proxy's own overhead is on both sides of every pair.
	u, _ := url.Parse(base)
	root := u.Scheme + "://" + u.Host
	var proxies [3]*slowdown.Proxy
	for i, s := range []slowdown.Shares{{}, {}, shares} {
		if proxies[i], err = slowdown.Start(root, s); err != nil {
			return err
		}
		defer proxies[i].Close()
	}
	urlOf := func(p *slowdown.Proxy) string { return p.URL() + u.Path }
	out, err := appendCSV(c.csvPath)
	if err != nil {
		return err
	}
	defer out.Flush()
	for trial := 0; trial < c.pairs*len(conditions) && ctx.Err() == nil; trial++ {
		cond := conditions[trial%len(conditions)]
		if done[trial].verdict != "" || (!cond.interleaved && c.seqPairs >= 0 && trial/len(conditions) >= c.seqPairs) {
			continue
		}
		cand := proxies[1]
		if cond.slowed {
			cand = proxies[2]
		}
		e := experiment(c, gate, urlOf(proxies[0]), urlOf(cand), trial)
		start := time.Now()
		var comp *metrics.Comparison
		var values [2][]*runtime.Outcome
		if cond.interleaved {
			comp, values, err = interleaved(ctx, e)
		} else {
			comp, values, err = sequential(ctx, e)
		}
		if ctx.Err() != nil {
			break // an interrupted trial is partial: measured again next time
		}
		if err != nil {
			return fmt.Errorf("trial %d (%s): %w", trial, cond.name, err)
		}
		row := []string{strconv.Itoa(trial), cond.name, string(comp.Verdict), fmt.Sprintf("%.5f", comp.Interval.Ratio),
			fmt.Sprintf("%.5f", comp.Interval.Low), string(comp.Interval.Method), fmt.Sprintf("%.2f", time.Since(start).Seconds())}
		_ = out.Write(append(row, runValues(gate, values)...))
		out.Flush()
		done[trial] = result{string(comp.Verdict), comp.Interval.Ratio}
		fmt.Fprintf(os.Stderr, "trial %d %s: %s ratio %.4f (%.1fs)\n", trial, cond.name, comp.Verdict, comp.Interval.Ratio, time.Since(start).Seconds())
	}
	return table(os.Stdout, c, done)
}

// experiment is one trial: side B (the endpoint) against side A (ab=),
// the same prompts on both, judged by gate.
func experiment(c config, gate metrics.Gate, a, b string, trial int) *plan.Experiment {
	endpoint := func(u string) plan.Endpoint {
		return plan.Endpoint{URL: u, API: transport.Chat, Stream: true, Model: c.model, Timeout: 5 * time.Minute,
			Extra: []transport.Field{{Key: "ignore_eos", Value: []byte("true")}}}
	}
	seed := uint64(trial/len(conditions) + 1)
	return &plan.Experiment{Name: "ab", Endpoint: endpoint(b),
		Dataset: dataset.Synthetic{Input: dataset.Fixed{N: float64(c.inputTokens)}, Output: dataset.Fixed{N: float64(c.outputTokens)},
			Entries: c.requests + c.warmup, Seed: seed},
		Load: plan.Load{Concurrency: c.concurrency}, Requests: c.requests, Warmup: c.warmup, Repeats: 1, Seed: seed,
		Gates: []metrics.Gate{gate},
		AB:    &plan.AB{Baseline: endpoint(a), Rounds: c.rounds, Mode: c.mode}}
}

// interleaved judges e as an A/B run: rounds ABBA, paired.
func interleaved(ctx context.Context, e *plan.Experiment) (*metrics.Comparison, [2][]*runtime.Outcome, error) {
	res, err := ab.Run(ctx, e, runtime.Options{}, ab.Observers{})
	if err != nil {
		return nil, [2][]*runtime.Outcome{}, err
	}
	c, err := verdictOf(res.Sides[engine.SideB].Points)
	return c, [2][]*runtime.Outcome{res.Sides[engine.SideA].Points[0].Repeats, res.Sides[engine.SideB].Points[0].Repeats}, err
}

// runValues are the gate's value in each run (round) of side A, then of
// side B, "a:" and "b:" marking where each side starts: the raw material
// for judging the same trials by another rule.
func runValues(g metrics.Gate, sides [2][]*runtime.Outcome) []string {
	var out []string
	for s, outs := range sides {
		out = append(out, []string{"a:", "b:"}[s])
		for _, run := range runtime.RoundRuns(outs, g.Component, 0) {
			v, err := g.MeasureRun(run)
			if err != nil {
				v = math.NaN()
			}
			out = append(out, strconv.FormatFloat(v, 'g', 7, 64))
		}
	}
	return out
}

// sequential judges e as two runs of the same length, A then B, by the
// usual judge (one run per side: the noise within each run).
func sequential(ctx context.Context, e *plan.Experiment) (*metrics.Comparison, [2][]*runtime.Outcome, error) {
	var outs [2]*runtime.Outcome
	for s, ep := range []plan.Endpoint{e.AB.Baseline, e.Endpoint} {
		x := *e
		x.AB, x.Endpoint = nil, ep // its baseline gate, unjudged here, keeps the per-request series
		res, err := runtime.RunExperiment(ctx, &x, runtime.Options{}, nil)
		if err != nil {
			return nil, [2][]*runtime.Outcome{}, err
		}
		outs[s] = res.Points[0].Outcome
	}
	x := *e
	x.AB = nil
	params := plan.ParamsOf(x.Load)
	against := &runtime.Baseline{Path: "a", Runs: func(_ plan.Params, component string) ([]metrics.RunData, error) {
		return runtime.RoundRuns(outs[:1], component, 0), nil
	}}
	p := runtime.NewPointResult(&x, against, params, outs[1:])
	c, err := verdictOf([]runtime.PointResult{p})
	return c, [2][]*runtime.Outcome{outs[:1], outs[1:]}, err
}

func verdictOf(points []runtime.PointResult) (*metrics.Comparison, error) {
	if len(points) != 1 || len(points[0].Gates) != 1 {
		return nil, errors.New("no judged gate")
	}
	g := points[0].Gates[0]
	if g.Err != nil {
		return nil, g.Err
	}
	return g.Comparison, nil
}

// startTarget is the server every side reaches through its proxy.
func startTarget(c config) (string, func(), error) {
	if c.target != "sim" {
		return c.target, func() {}, nil
	}
	cfg := sim.DefaultConfig()
	cfg.ITL, cfg.Model = c.itl, c.model
	var err error
	if cfg.Drift, cfg.DriftWave, err = sim.ParseDrift(c.drift); err != nil {
		return "", nil, err
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		return "", nil, err
	}
	return srv.URL() + "/v1", func() { _ = srv.Close() }, nil
}

// result is one trial's judgment: its verdict and estimated ratio B/A.
type result struct {
	verdict string
	ratio   float64
}

// readTrials are the trials the CSV holds, by trial number.
func readTrials(path string) (map[int]result, error) {
	done := map[int]result{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1 // rows carry each run's value after the verdict
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if n, err := strconv.Atoi(r[0]); err == nil {
			ratio, _ := strconv.ParseFloat(r[3], 64)
			done[n] = result{r[2], ratio}
		}
	}
	return done, nil
}

func appendCSV(path string) (*csv.Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return csv.NewWriter(f), nil
}

// table prints the rates with Wilson intervals, as docs/compare.md shows
// them.
func table(w io.Writer, c config, done map[int]result) error {
	fmt.Fprintf(w, "target %s, drift %s, gate %q, slowdown %s, %d requests per side at concurrency %d, %d rounds per side (%s)\n\n",
		c.target, c.drift, c.gate, c.slow, c.requests, c.concurrency, c.rounds, c.mode)
	fmt.Fprintln(w, "| pairs A/A / A/B | judged as | false alarms (A/A) | detections (A/B) | B/A ratio, A/A: median [5%, 95%] | B/A ratio, A/B: median [5%, 95%] |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, mode := range []string{"interleaved", "sequential"} {
		var rate [2]struct{ k, n int }
		var ratios [2][]float64
		for trial, v := range done {
			cond := conditions[trial%len(conditions)]
			if (mode == "interleaved") != cond.interleaved {
				continue
			}
			i := 0
			if cond.slowed {
				i = 1
			}
			rate[i].n++
			ratios[i] = append(ratios[i], v.ratio)
			if v.verdict == string(metrics.VerdictRegression) {
				rate[i].k++
			}
		}
		how := "A/B rounds, paired (paired-rounds)"
		if mode == "sequential" {
			how = "two runs, one per side (usual judge)"
		}
		fmt.Fprintf(w, "| %d / %d | %s | %s | %s | %s | %s |\n", rate[0].n, rate[1].n, how, share(rate[0].k, rate[0].n), share(rate[1].k, rate[1].n),
			spread(ratios[0]), spread(ratios[1]))
	}
	return nil
}

// spread is the median of the ratios with their 5% and 95% quantiles.
func spread(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	slices.Sort(rs)
	at := func(q float64) float64 { return rs[int(math.Round(q*float64(len(rs)-1)))] }
	return fmt.Sprintf("%.3f [%.3f, %.3f]", at(0.5), at(0.05), at(0.95))
}

func share(k, n int) string {
	lo, hi := calibrate.Wilson(k, n, calibrate.Z95)
	return fmt.Sprintf("%d/%d = %.1f%% [%.1f%%, %.1f%%]", k, n, 100*float64(k)/math.Max(1, float64(n)), 100*lo, 100*hi)
}

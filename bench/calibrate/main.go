// Command calibrate measures how often `llmbench compare` raises a false
// alarm and how often it catches a real slowdown, by running real
// measurement runs and judging pairs of them exactly as `compare` judges
// two result sets. docs/compare.md ("Measured false-positive rate and
// power") quotes its table; the synthetic test in metrics/ only checks the
// method on made-up data, this checks it on runs the engine really made.
//
//	go run ./bench/calibrate -pairs 150 -out out/compare-calibration/sim.md
//	go run ./bench/calibrate -target http://127.0.0.1:11434/v1 -model tiny \
//	    -pairs 24 -repeats 1 -slowdown "" -concurrency 2 -requests 30 ...
//
// (task compare-calibration and task compare-calibration-real run both
// with the settings docs/compare.md quotes.)
//
// Each run goes through runtime.RunExperiment (the engine behind
// `llmbench run`) over HTTP on 127.0.0.1, against a fresh simulator per
// run (its own jitter seed and prompts) or a real server. Pairs are judged
// by comparison.Build with metrics.DefaultCompareOptions — the code
// `llmbench compare` calls once it has read two result sets — across
// comparison.DefaultMetrics, Holm across them.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

// run measures (or loads) every run of the plan, judges the pairs and
// prints the table; measuring comes first and judging after, so the
// bootstrap's CPU use never disturbs a measurement.
func run(ctx context.Context, cfg config) error {
	var st *store
	if cfg.load != "" {
		var err error
		if st, err = loadStore(cfg.load); err != nil {
			return err
		}
		cfg.restoreFrom(st.Config)
		fmt.Fprintf(os.Stderr, "loaded %d runs from %s (measured in %s)\n", len(st.Runs), cfg.load, st.Elapsed.Round(time.Second))
	} else {
		p := newPlan(cfg)
		fmt.Fprintf(os.Stderr, "calibrate: %s; %d rounds × %d runs = %d runs\n", cfg.describe(), p.rounds, p.runsPerRound(), p.total())
		var err error
		st, err = measureAll(ctx, cfg, p)
		if cfg.save != "" && st != nil && len(st.Runs) > 0 {
			if serr := st.save(cfg.save); serr != nil {
				return serr
			}
			fmt.Fprintf(os.Stderr, "saved %d runs to %s\n", len(st.Runs), cfg.save)
		}
		if err != nil {
			return err
		}
	}
	if cfg.runsCSV != "" {
		if err := writeRunsCSV(cfg.runsCSV, st); err != nil {
			return err
		}
	}
	t0 := time.Now()
	res, err := judgeAll(st, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "judged in %s\n", time.Since(t0).Round(time.Second))
	md := renderMarkdown(res, st, cfg)
	fmt.Print(md)
	if cfg.out != "" {
		return writeFile(cfg.out, []byte(md))
	}
	return nil
}

// writeFile writes data to path, making its folder first (out/ is not in
// the repository).
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

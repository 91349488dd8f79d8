// Command calibrate measures how often baseline gates raise a false alarm
// and how often they catch a real change, on real runs judged exactly as
// `llmbench run --baseline` judges a point's gates (metrics.JudgePoint).
// docs/compare.md ("Measured false alarms and detections") holds the
// tables it writes there itself (-doc).
//
//	go run ./bench/calibrate -store out/calibration/sim -out out/calibration/sim.md -csv out/calibration/sim.csv
//	go run ./bench/calibrate -target http://127.0.0.1:11434/v1 -model tiny ... -store out/calibration/real
//
// (task compare-calibration and task compare-calibration-real run both
// with the settings docs/compare.md quotes.)
//
// Each run goes through runtime.RunExperiment (the engine behind
// `llmbench run`) over HTTP on 127.0.0.1, against a fresh simulator per
// run (its own jitter seed, drift and prompts) or a real server behind
// the slowdown proxy. Runs are kept in a store as they end, so a
// calibration resumes where it stopped, and are judged after all are
// measured, in pairs drawn from pools of runs (plan.go, pairs.go), with
// the four gates of judge.go.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/runtime/calibrate"
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

// run measures what the store lacks, then judges and prints the tables;
// measuring comes first and judging after, so the judge's CPU use never
// disturbs a measurement.
func run(ctx context.Context, cfg config) error {
	st, err := calibrate.OpenStore(cfg.store, &cfg.measure, cfg.judgeOnly, measure.describe)
	if err != nil {
		return fmt.Errorf("-%w", err)
	}
	st.MaxLoad = cfg.maxLoad
	if !cfg.judgeOnly {
		if err := measureMissing(ctx, cfg, st); err != nil {
			return err
		}
	}
	if cfg.runsCSV != "" {
		if err := writeRunsCSV(cfg.runsCSV, st); err != nil {
			return err
		}
	}
	var before map[string]string
	if cfg.before != "" {
		if before, err = readBefore(cfg.before); err != nil {
			return err
		}
	}
	t0 := time.Now()
	res, err := judgeAll(st, cfg)
	if err != nil {
		return err
	}
	judged := time.Since(t0)
	fmt.Fprintf(os.Stderr, "judged in %s\n", judged.Round(time.Second))
	rows := rowsOf(res, cfg.isSim())
	spread, err := spreadTable(st, cfg)
	if err != nil {
		return err
	}
	md := renderMarkdown(rows, before, header(st, cfg, judged)) + spread
	fmt.Print(md)
	if cfg.csv != "" {
		if err := writeCSV(cfg.csv, rows); err != nil {
			return err
		}
	}
	if cfg.doc != "" {
		if err := calibrate.ReplaceInDoc(cfg.doc, docSection(cfg), md); err != nil {
			return err
		}
	}
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

package main

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/calibrate"
)

// The store, its runs, the pools and their order, and the pairs are
// runtime/calibrate's, shared with `llmbench calibrate`; these are their
// names here.
type (
	store     = calibrate.Store
	storedRun = calibrate.Run
	runSpec   = calibrate.RunSpec
	pool      = calibrate.Pool
	effect    = calibrate.Effect
	setup     = calibrate.Setup
	pair      = calibrate.Pair
)

// data is a run of bench/calibrate (one point measured once) as a judge
// reads it.
func data(r *storedRun) metrics.RunData { return calibrate.RepeatData(r.Single()) }

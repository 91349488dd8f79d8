// Package calibrate owns the measurement of how often baseline gates
// raise a false alarm and how often they catch a real change, on real
// runs judged exactly as `llmbench run --baseline` judges a point's gates.
//
// It holds what `llmbench calibrate` (a scenario against the user's own
// server) and bench/calibrate (the simulator tables of docs/compare.md)
// share: the store of measured runs (an interrupted calibration loses at
// most the run in flight), the pools of runs and the order they are
// measured in, the pairing of runs into judged points, the Wilson
// interval of a measured rate, the run-to-run spread and the sample
// sizes it implies (Recommend), and the product's own plan, judge and
// report for a scenario (CalibrateScenario). The judge itself is
// metrics.JudgePoint, reached through runtime.EvaluateGates as `run
// --baseline` reaches it, never a copy.
package calibrate

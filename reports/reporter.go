// Package reports is the seam every output of llmbench goes through. A
// Reporter writes one file or one console block from typed results, as
// vegeta's reporters do: what a report says is decided when the Reporter
// is built, where it goes when it is called, so the same Reporter fills
// a file, a console or a golden test alike.
//
// Its subpackages each own one family of outputs: genaiperf (GenAI-Perf's
// files and console table), records (records.parquet, telemetry.parquet),
// sweep (the sweep table and summary.json), verdict (the gate verdicts),
// telemetry (a point's telemetry lines and block), plots (PNGs), html
// (report.html), views (other tools' summaries), comparison (compare
// and its files), regression (judging stored runs against each other and
// baselines), storedrun (the one reader of a stored run), progress (a
// running point's live line) and artifacts (where a run's files go, and
// writing them as the run goes).
package reports

import "io"

// Reporter writes one output to w. It may be called more than once (a
// golden test and a file), so it holds its results, not a half-written
// state.
type Reporter func(w io.Writer) error

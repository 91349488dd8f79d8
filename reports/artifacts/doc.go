// Package artifacts owns a run's output folder: its layout (layout.go:
// OUT/<experiment>/<point>[/repeatK]/ and the run's files beside them),
// writing it as the run goes — the observers stream each point's records
// into its folder (pointSink), print its tables, draw its plots once and
// checkpoint it; RunReport writes the run's files (summary.json,
// gates.json, report.html, JUnit, Markdown, compare.json) from its
// results, each a reports.Reporter — merging shards' folders into one,
// and checking before anything is sent that every place a run will write
// to can be written, so `llmbench check` and `llmbench run` refuse an
// unwritable --out, --junit or --summary-md alike. What each file says
// is the writers' (genaiperf, records, sweep, verdict, html, plots...);
// this package decides where it goes and when.
package artifacts

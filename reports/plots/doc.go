// Package plots renders llmbench's PNG plots (SPEC §7) with gonum/plot, so
// they are drawn in pure Go with embedded fonts and need no network, no
// browser and no Python (GenAI-Perf's plotly+kaleido plots are broken in
// its last release).
//
// WritePointPlots draws GenAI-Perf's five per-point plots from the records
// of one point; WriteSweepPlots draws the capacity plots of a sweep from
// its summaries. Both skip a plot whose data is absent instead of failing,
// so a non-streaming run or a run without goodput SLOs still gets the rest.
// Times are drawn in milliseconds, the unit people read latencies in.
package plots

// Package plots renders llmbench's PNG plots (SPEC §7) with gonum/plot, so
// they are drawn in pure Go with embedded fonts and need no network, no
// browser and no Python (GenAI-Perf's plotly+kaleido plots are broken in
// its last release).
//
// RenderPointPlots draws GenAI-Perf's five per-point plots from the records
// of one point; RenderSweepPlots draws the capacity plots of a sweep from
// its summaries, marking the knee of the gate the caller names. Both give
// PNG bytes in memory, so one rendering can be written to disk
// (WriteImages; WritePointPlots and WriteSweepPlots do both steps) and
// embedded in report.html. Both skip a plot whose data is absent instead
// of failing, so a non-streaming run or a run without goodput SLOs still
// gets the rest. Times are drawn in milliseconds, the unit people read
// latencies in.
package plots

// Package plots renders llmbench's PNG plots (SPEC §7) with gonum/plot, so
// they are drawn in pure Go with embedded fonts and need no network, no
// browser and no Python (GenAI-Perf's plotly+kaleido plots are broken in
// its last release).
//
// RenderPointPlots draws GenAI-Perf's five per-point plots from the records
// of one point (and llmbench's TTFT from the schedule of an open loop and
// TTFT by turn of conversations); RenderSweepPlots draws the capacity
// plots of a sweep from its summaries, marking the knee and saturation
// point of the run's capacity analysis; WriteTrendPlots draws `llmbench
// compare`'s metrics over a history of runs. With
// telemetry (SPEC §8), RenderTelemetrySweepPlots draws the design
// article's three axes (throughput, J per token, cost per million tokens)
// and the GPUs' power along the load, and RenderTelemetryPlots a point's
// power, KV cache and queue over time, as figures of stacked panels that
// share an axis. All give PNG bytes in memory, so one rendering is
// written to disk (WriteImages; WriteSweepPlots and WriteTrendPlots do
// both steps) and embedded in report.html, never
// drawn twice or read back. All
// skip a plot whose data is absent instead of failing, so a non-streaming
// run, a run without goodput SLOs or one without telemetry still gets the
// rest. Latencies are drawn in milliseconds, the unit people read them
// in; telemetry over time in seconds from the point's first send.
package plots

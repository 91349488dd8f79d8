// Package sweep reports a sweep as a whole: the console sweep table (one
// row per point, then the knee, the max-goodput point and the saturation
// point named in words), typed (Table) so report.html lays the same
// table out, and summary.json, every experiment and point for programs,
// with the prefix-cache shift between points. Both are reports.Reporter
// values and run the same capacity analysis, so the file never says
// something the console did not. It reads runtime's result types,
// metrics' analyses and the telemetry and views blocks summary.json
// embeds; running a sweep is runtime's job.
package sweep

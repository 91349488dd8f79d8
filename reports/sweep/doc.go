// Package sweep reports a sweep as a whole: the console sweep table (one
// row per point, then the knee, the max-goodput point and the saturation
// point named in words) and summary.json, every experiment and point for
// programs. Both run the same capacity analysis, so the file never says
// something the console did not. It reads runtime's result types and
// metrics' analyses only; running a sweep is runtime's job.
package sweep

// Package telemetry writes what a point's scrapes came to for people and
// programs: the console's GPU and server lines (Console, a
// reports.Reporter), and the "telemetry" block
// llmbench adds to profile_export_genai_perf.json and summary.json
// (energy, J/token, cost, the server's queue and KV cache, and the
// server's own latencies beside the client's). GenAI-Perf's own
// telemetry_stats and GPU tables are reports/genaiperf's.
package telemetry

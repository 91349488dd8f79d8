// Package livemetrics streams a running point's per-interval figures
// (metrics.LiveSample: request and error counts, TTFT and ITL quantiles,
// throughput) to time-series databases while a run goes (--live-metrics),
// as k6's outputs do: Prometheus' remote-write protocol (a snappy-
// compressed protobuf WriteRequest, encoded here with protowire) and
// OTLP over HTTP through the OpenTelemetry Go SDK's exporter. It owns the
// network I/O of live export; what is sampled, and when, is the caller's.
// A receiver that fails never stops a run: Push reports the error and the
// measurement goes on.
package livemetrics

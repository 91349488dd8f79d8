package metrics

// TelemetrySample is one value read from a scraped Prometheus /metrics
// endpoint (a DCGM exporter, an inference server): the unit telemetry is
// collected, stored (telemetry.parquet) and reduced in. The scraper in
// transport produces them; the reductions here read them; neither knows
// the other's internals.
type TelemetrySample struct {
	// Time is when the scrape that read it was answered, in ns on the
	// clock request records use (transport.Clock: Unix ns, monotonic), so
	// a sample can be placed against a point's first send and last
	// response.
	Time int64
	// Source names the endpoint scraped: its host:port (never its
	// credentials), so two hosts' GPU 0 stay apart.
	Source string
	// Name is the series name as exposed: DCGM_FI_DEV_POWER_USAGE,
	// vllm:num_requests_running, and for a histogram its
	// vllm:time_to_first_token_seconds_bucket / _sum / _count series.
	Name string
	// Labels are the series' labels in name order (gpu, UUID, Hostname,
	// model_name, le for a histogram bucket, ...).
	Labels []Label
	Value  float64
}

// Label is one Prometheus label.
type Label struct {
	Name, Value string
}

// Label returns the value of the named label, "" when absent.
func (s *TelemetrySample) Label(name string) string {
	for _, l := range s.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

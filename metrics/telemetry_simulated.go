package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// SimulatedMarker is the series llmbench's simulator puts on its /metrics
// page, at 1: every other series there (its H100, its vLLM queue and
// latencies) is made up. A scraped page cannot otherwise be told from a
// real DCGM exporter and vLLM, and its numbers must never be taken for
// measurements (SPEC §8): a source whose page carries the marker at a
// value other than 0 is simulated. The marker travels with the samples,
// into telemetry.parquet too, so a point rebuilt from its files knows.
const SimulatedMarker = "llmbench_simulated"

// sourceChoice is which scraped sources the reductions read. Simulated
// sources are read only when nothing else was scraped: beside a real
// exporter, the simulator's made-up GPU would be added to the real ones
// (a fake H100 to two A100s) and its queue to the real server's.
type sourceChoice struct {
	// simulated are the sources carrying the marker, sorted.
	simulated []string
	// leftOut are the simulated sources not read, sorted.
	leftOut []string
}

// chooseSources sorts the samples' sources into real and simulated, and
// leaves the simulated ones out when a real one has samples.
func chooseSources(samples []TelemetrySample) sourceChoice {
	var c sourceChoice
	seen := map[string]bool{}
	real := false
	last := "\x00" // no source is named so: the first sample is looked up
	for i := range samples {
		s := &samples[i]
		if s.Name == SimulatedMarker && s.Value != 0 && !slices.Contains(c.simulated, s.Source) {
			c.simulated = append(c.simulated, s.Source)
		}
		if s.Source != last {
			last = s.Source
			seen[s.Source] = true
		}
	}
	for src := range seen {
		real = real || !slices.Contains(c.simulated, src)
	}
	slices.Sort(c.simulated)
	if real {
		c.leftOut = c.simulated
	}
	return c
}

// reads says whether the reductions use source's samples.
func (c sourceChoice) reads(source string) bool {
	return len(c.leftOut) == 0 || !slices.Contains(c.leftOut, source)
}

// allSimulated says whether every source read is simulated, so every
// figure reduced is made up.
func (c sourceChoice) allSimulated() bool {
	return len(c.simulated) > 0 && len(c.leftOut) == 0
}

// warnings say which simulated sources were left out, and why.
func (c sourceChoice) warnings() []string {
	if len(c.leftOut) == 0 {
		return nil
	}
	serves, its := "serves", "its"
	if len(c.leftOut) > 1 {
		serves, its = "serve", "their"
	}
	return []string{fmt.Sprintf("%s %s llmbench's simulated metrics (%s 1): left out of every figure, since real exporters were scraped too; %s samples are kept in telemetry.parquet",
		strings.Join(c.leftOut, ", "), serves, SimulatedMarker, its)}
}

// simulatedLabel is the word shown beside a simulated GPU's key in
// GenAI-Perf's files, where no other field can carry it.
const simulatedLabel = " (simulated)"

// SimulatedSources are the sources among samples whose pages carried
// SimulatedMarker, sorted: telemetry.parquet flags their rows.
func SimulatedSources(samples []TelemetrySample) []string {
	return chooseSources(samples).simulated
}

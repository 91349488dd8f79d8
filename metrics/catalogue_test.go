package metrics

import (
	"strings"
	"testing"
)

// Every name and alias finds its own metric, and no two metrics share
// one: a name means one metric wherever it is written.
func TestCatalogueNamesAreUnique(t *testing.T) {
	seen := map[string]string{}
	for _, m := range Catalogue() {
		for _, name := range append([]string{m.Name}, m.Aliases...) {
			if other, dup := seen[name]; dup {
				t.Errorf("%q names both %s and %s", name, other, m.Name)
			}
			seen[name] = m.Name
			if got, ok := Lookup(name); !ok || got != m {
				t.Errorf("Lookup(%q) = %v, %v; want %s", name, got, ok, m.Name)
			}
		}
	}
	if _, ok := Lookup("ttfb"); ok {
		t.Error(`Lookup("ttfb") found a metric`)
	}
}

// Every metric can be read one way, which its kind says, and every gate
// metric parses in a gate while a report-only value is refused.
func TestCatalogueEntriesAreComplete(t *testing.T) {
	for _, m := range Catalogue() {
		readers := 0
		for _, set := range []bool{m.distribution != nil, m.value != nil, m.telemetry != nil && m.run == nil, m.run != nil} {
			if set {
				readers++
			}
		}
		switch {
		case readers != 1:
			t.Errorf("%s has %d ways to be read, want 1", m.Name, readers)
		case m.Kind == PerRequest && (m.distribution == nil || m.request == nil):
			t.Errorf("%s is per request but has no distribution or no per-request values", m.Name)
		case m.Kind == Telemetry && m.Need != NeedTelemetry:
			t.Errorf("%s is read from telemetry but does not need it", m.Name)
		case m.Unit == "" && m.q != quantityFlag:
			t.Errorf("%s has no unit", m.Name)
		}
		_, err := ParseGate(m.Name + " != 0.5")
		if m.ReportOnly() != (err != nil) {
			t.Errorf("ParseGate(%s != 0.5): %v (report-only %v)", m.Name, err, m.ReportOnly())
		}
	}
}

// Directions are those compare has always judged by: times, error_rate,
// energy and cost lower is better; throughputs and goodput higher; the
// rest has none.
func TestCatalogueDirections(t *testing.T) {
	for _, m := range Catalogue() {
		var want Direction
		switch {
		case m.ReportOnly():
		case m.q == quantityTime, m.q == quantityEnergy, m.q == quantityCost, m == ErrorRate:
			want = LowerIsBetter
		case m.q == quantityThroughput:
			want = HigherIsBetter
		}
		if m.Direction != want {
			t.Errorf("%s: %v, want %v", m.Name, m.Direction, want)
		}
	}
}

// The headline, which summary.json's repeats, the HTML repeats table and
// compare's defaults are made of, names catalogue metrics only.
func TestHeadlineNamesCatalogueMetrics(t *testing.T) {
	for _, name := range HeadlineNames() {
		base, _, _ := strings.Cut(name, ".")
		if m, ok := Lookup(base); !ok || HeadlineMetric(name) != m {
			t.Errorf("headline %s: no catalogue metric %q", name, base)
		}
	}
}

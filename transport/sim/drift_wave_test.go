package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestWaveFactorExactly: the factor at the quarter points of a period,
// and after a whole one, worked by hand for sine(10%, 60s).
func TestWaveFactorExactly(t *testing.T) {
	w := Wave{Amplitude: 0.10, Period: time.Minute}
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{
		{0, 1}, {15 * time.Second, 1.1}, {30 * time.Second, 1}, {45 * time.Second, 0.9}, {time.Minute, 1},
		{5 * time.Second, 1 + 0.1*0.5}, // sin(π/6) = 1/2
	} {
		if got := w.Factor(tc.at); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Factor(%s) = %.15g, want %g", tc.at, got, tc.want)
		}
	}
	if got := (Wave{}).Factor(time.Hour); got != 1 {
		t.Errorf("the zero wave's factor = %v, want 1", got)
	}
}

func TestParseDrift(t *testing.T) {
	for _, tc := range []struct {
		in    string
		sigma float64
		wave  Wave
		err   string
	}{
		{in: "0.05", sigma: 0.05},
		{in: "sine(10%, 60s)", wave: Wave{0.10, time.Minute}},
		{in: "sine(0.2,1m30s)", wave: Wave{0.2, 90 * time.Second}},
		{in: "sine(10%)", err: "want sine(AMPLITUDE, PERIOD)"},
		{in: "sine(150%, 60s)", err: "amplitude in (0, 100%)"},
		{in: "sine(10%, -1s)", err: "period > 0"},
		{in: "sine(ten, 60s)", err: `amplitude "ten" is not a number`},
		{in: "cosine(1)", err: "want a number"},
	} {
		sigma, wave, err := ParseDrift(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDrift(%q) error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || sigma != tc.sigma || wave != tc.wave {
			t.Errorf("ParseDrift(%q) = %v, %v, %v; want %v, %v", tc.in, sigma, wave, err, tc.sigma, tc.wave)
		}
	}
	if _, w, _ := ParseDrift(Wave{0.1, time.Minute}.String()); w != (Wave{0.1, time.Minute}) {
		t.Errorf("String does not read back: %v", w)
	}
}

package calibrate

import (
	"math"
)

// The sample sizes a gate needs (docs/ci.md, "Calibrate your gates
// first"), from the noise a calibration measured, in the normal model the
// between-run judge rests on.
//
// Everything is on the log scale, in the gate's worse direction: a
// baseline gate with tolerance tol fails when the estimated change d̂
// (the mean of ln(candidate) − the mean of ln(baseline) over the repeats,
// sign-flipped for a higher-is-better metric) exceeds both its threshold
// L = ln(1 + tol) (−ln(1 − tol) for a higher-is-better gate) and z·se,
// the one-sided bound that makes the change real (z = z₁₋α at the judge's
// level α, divided by the family's size, Holm's first step). d̂ is
// normal around the true change D with standard error
//
//	se = σ · √(1/n_b + 1/n_c)
//
// where σ is the SD of ln(metric) between repeats of the unchanged server
// (measured over every unchanged run, so drift from run to run is in it)
// and n_b, n_c count the repeats on each side. So:
//
//	false alarms ≤ 1% at no change   ⇐ L ≥ z₀.₉₉ · se
//	detection ≥ 90% of a change D   ⇔ D − max(L, z·se) ≥ z₀.₉₀ · se
//
// and the largest se meeting both is
//
//	se* = min(L / z₀.₉₉, (D − L) / z₀.₉₀, D / (z + z₀.₉₀))
//
// (no se reaches 90% when D ≤ L: a gate fails only beyond its
// tolerance). The sizes that reach se*:
//
//	repeats per side, baseline and candidate alike: n ≥ 2σ² / se*²
//	history (baseline runs of n₀ repeats each, against one of n₀):
//	    h ≥ σ² / (n₀·se*² − σ²), none when n₀·se*² ≤ σ²
//	requests per repeat at n₀ repeats a side: σ² = τ² + v·R₀/R, where v
//	    is the part of σ² the R₀ requests of a repeat make (Noise.Sampling)
//	    and τ² = σ² − v the drift no request count removes:
//	    R ≥ v·R₀ / (n₀·se*²/2 − τ²), none when τ² ≥ n₀·se*²/2
//
// D is the change the calibration's slowdown really made to the gate's
// metric, measured against the same server's runs.

// Noise is what a calibration measured of one gate's metric.
type Noise struct {
	// SD is σ, the SD of ln(metric) over the unchanged server's repeats.
	SD float64
	// Sampling is the part of SD² that the requests of one repeat make:
	// (ln m₁ − ln m₂)²/4 averaged over the repeats, m₁ and m₂ the metric
	// on the repeat's even and odd requests (each half has twice a
	// repeat's sampling variance, and their difference twice that).
	Sampling float64
	// Repeats and Requests are the scenario's (n₀, R₀).
	Repeats, Requests int
}

// Target is what a gate must tell apart.
type Target struct {
	// Threshold is L, the gate's tolerance on the log scale.
	Threshold float64
	// Change is D, the true change to detect on the log scale, in the
	// gate's worse direction.
	Change float64
	// Z is the one-sided quantile a change must clear to be real.
	Z float64
}

// Recommendation are the sizes that reach ≤ 1% false alarms and ≥ 90%
// detection; a size of 0 means none does.
type Recommendation struct {
	// MaxSE is se*, the largest standard error that reaches both.
	MaxSE float64 `json:"max_se"`
	// Detectable is false when the change is within the tolerance, which
	// no sample size detects 90% of the time: then the sizes only reach
	// ≤ 1% false alarms.
	Detectable bool `json:"detectable"`
	// Repeats is n, per side, the baseline one run of them.
	Repeats int `json:"repeats"`
	// History is h, at the scenario's repeats.
	History int `json:"history"`
	// Requests is R, per repeat at the scenario's repeats.
	Requests int `json:"requests"`
}

// Quantiles of the standard normal distribution.
var (
	z99 = NormalQuantile(0.99)
	z90 = NormalQuantile(0.90)
)

// NormalQuantile is the p-quantile of the standard normal distribution.
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// Recommend computes the sizes (see the formulas above).
func Recommend(n Noise, t Target) Recommendation {
	r := Recommendation{MaxSE: t.Threshold / z99, Detectable: t.Change > t.Threshold}
	if r.Detectable {
		r.MaxSE = math.Min(r.MaxSE, math.Min((t.Change-t.Threshold)/z90, t.Change/(t.Z+z90)))
	}
	if !(n.SD >= 0) || !(r.MaxSE > 0) {
		return r
	}
	v, se2 := n.SD*n.SD, r.MaxSE*r.MaxSE
	r.Repeats = max(2, ceil(2*v/se2))
	n0 := float64(max(n.Repeats, 1))
	if room := n0*se2 - v; room > 0 {
		r.History = max(1, ceil(v/room))
	}
	drift := math.Max(0, v-n.Sampling)
	if room := n0*se2/2 - drift; room > 0 && n.Requests > 0 {
		r.Requests = max(1, ceil(n.Sampling*float64(n.Requests)/room))
	}
	return r
}

// ceil rounds up, leaving a value within 1e-9 of a whole number at it
// (so 2σ²/se*² = 4 exactly asks 4, not 5 after rounding error).
func ceil(x float64) int {
	if r := math.Round(x); math.Abs(x-r) < 1e-9 {
		return int(r)
	}
	return int(math.Ceil(x))
}

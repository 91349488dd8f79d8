package calibrate

import (
	"math"
)

// The sample sizes a gate needs (docs/ci.md, "How the sizes are
// computed"), from the noise a calibration measured, in the normal model
// the between-run judge rests on.
//
// Everything is on the log scale, in the gate's worse direction: a
// baseline gate with tolerance tol fails when the estimated change d̂
// (the mean of ln(metric) over the candidate's repeats minus the mean
// over the baseline's, sign-flipped for a higher-is-better metric)
// exceeds both its threshold L = ln(1 + tol) (−ln(1 − tol) for a
// higher-is-better gate) and z·se, the one-sided bound that makes the
// change real (z = z₁₋α at the judge's level α divided by the family's
// size, Holm's first step).
//
// A run's repeats share the run's server start and machine, so the noise
// has two levels: τ², the variance of ln(metric) between runs beyond what
// their repeats show, and w, the variance between the repeats of one run.
// The mean over one run of n repeats varies by V(n) = τ² + w/n, and with a
// baseline history of h such runs against one candidate run
//
//	se² = V(n)·(1 + 1/h)
//
// and with k runs on each side (a history of k against k runs of the
// candidate, separate jobs) se² = 2·V(n)/k. d̂ is normal around the true
// change D with that standard error, so:
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
//	repeats n a side, history 1:        n ≥ w / (se*²/2 − τ²), none when τ² ≥ se*²/2
//	history h at the scenario's n₀:     h ≥ V₀ / (se*² − V₀), V₀ = τ² + w/n₀, none when V₀ ≥ se*²
//	runs k a side at n₀:                k ≥ 2·V₀ / se*²
//	requests R a repeat at n₀, history 1: w = ω² + v·R₀/R, where v is the part of w
//	    the R₀ requests of a repeat make (Noise.Sampling) and ω² = w − v the drift
//	    between repeats no request count removes:
//	    R ≥ v·R₀ / (n₀·(se*²/2 − τ²) − ω²), none when that is ≤ 0
//
// D is the change the calibration's slowdown really made to the gate's
// metric, measured against the same server's runs. The scenario as it is
// (one run of n₀ repeats a side) raises false alarms at most
// 1 − Φ(L / √(2·V₀)) of the time (FalseAlarmBound), which the measured
// rate can be held against.

// Noise is what a calibration measured of one gate's metric, as
// variances of ln(metric).
type Noise struct {
	// Between is τ², the variance between runs beyond their repeats'.
	Between float64
	// Within is w, the variance between the repeats of one run.
	Within float64
	// Sampling is v, the part of Within that the requests of one repeat
	// make: (ln m₁ − ln m₂)²/4 averaged over the repeats, m₁ and m₂ the
	// metric on the repeat's even and odd requests (each half has twice
	// a repeat's sampling variance, and their difference twice that).
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
	// Runs is k, the runs of the scenario's repeats on each side.
	Runs int `json:"runs"`
	// Requests is R, per repeat at the scenario's repeats.
	Requests int `json:"requests"`
	// HalvesDisagree says the halves of a repeat differed more than its
	// repeats did (v > w): its requests are not interchangeable samples —
	// at concurrency 2 on a server that prefills one sequence while the
	// other waits, every second request's ITL carries that wait — so the
	// model behind Requests does not hold, and no request count is
	// predicted.
	HalvesDisagree bool `json:"halves_disagree,omitempty"`
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
	if !(n.Between >= 0 && n.Within >= 0) || !(r.MaxSE > 0) {
		return r
	}
	se2 := r.MaxSE * r.MaxSE
	if room := se2/2 - n.Between; room > 0 {
		r.Repeats = max(2, ceil(n.Within/room))
	}
	n0 := float64(max(n.Repeats, 1))
	if v0 := v0(n); se2 > v0 {
		r.History = max(1, ceil(v0/(se2-v0)))
	}
	r.Runs = max(1, ceil(2*v0(n)/se2))
	if r.HalvesDisagree = n.Sampling > n.Within; r.HalvesDisagree {
		return r
	}
	drift := n.Within - n.Sampling
	if room := n0*(se2/2-n.Between) - drift; room > 0 && n.Requests > 0 && n.Sampling >= 0 {
		r.Requests = max(1, ceil(n.Sampling*float64(n.Requests)/room))
	}
	return r
}

// v0 is V₀ = τ² + w/n₀, the variance of one run's mean over its repeats.
func v0(n Noise) float64 { return n.Between + n.Within/float64(max(n.Repeats, 1)) }

// FalseAlarmBound is 1 − Φ(L/√(2·V₀)): the chance that one run of the
// scenario's repeats, judged against another of the same server, moves
// beyond the threshold L; a gate's false alarms cannot exceed it (the
// judge also asks the change to be real).
func FalseAlarmBound(n Noise, threshold float64) float64 {
	return 1 - 0.5*math.Erfc(-threshold/math.Sqrt(2*v0(n))/math.Sqrt2)
}

// SplitVariance splits the variance of ln values measured in runs of
// repeats (runs[j] the repeats of run j) into τ², between runs beyond
// their repeats, and w, between the repeats of one run: w pools the
// repeats' squared deviations from their run's mean over Σ(nⱼ − 1)
// degrees of freedom; τ² = s²(run means) − w·mean(1/nⱼ), at least 0.
// Runs of one repeat show no w (0), so all their spread is τ²; NaN
// for fewer than two runs.
func SplitVariance(runs [][]float64) (between, within float64) {
	var means []float64
	var ss, inv float64
	df := 0
	for _, xs := range runs {
		if len(xs) == 0 {
			continue
		}
		m := 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		df += len(xs) - 1
		inv += 1 / float64(len(xs))
		means = append(means, m)
	}
	if len(means) < 2 {
		return math.NaN(), math.NaN()
	}
	if df > 0 {
		within = ss / float64(df)
	}
	grand := 0.0
	for _, m := range means {
		grand += m
	}
	grand /= float64(len(means))
	var sm float64
	for _, m := range means {
		sm += (m - grand) * (m - grand)
	}
	sm /= float64(len(means) - 1)
	return math.Max(0, sm-within*inv/float64(len(means))), within
}

// ceil rounds up, leaving a value within 1e-9 of a whole number at it
// (so 2σ²/se*² = 4 exactly asks 4, not 5 after rounding error).
func ceil(x float64) int {
	if r := math.Round(x); math.Abs(x-r) < 1e-9 {
		return int(r)
	}
	return int(math.Ceil(x))
}

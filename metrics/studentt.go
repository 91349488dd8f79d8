package metrics

// Student's t distribution: the quantiles the judge's confidence
// intervals need and the tail probabilities of a t-test (the judge, the
// change-point detector's significance test), one implementation both use.

import "math"

// studentTQuantile returns the p-quantile (0.5 ≤ p < 1) of Student's t
// distribution with df degrees of freedom: the critical value a confidence
// interval from a few repeats needs. With three repeats the 95% interval is
// mean ± 4.303 · s/√3, more than twice as wide as the normal 1.960 would
// say; using the normal value would claim a precision three runs do not
// have. It is computed, not tabulated, so every df is exact (to far better
// than the three decimals tables give), by bisection on the distribution
// function, whose tail is a regularized incomplete beta function.
func studentTQuantile(p, df float64) float64 {
	if !(p >= 0.5 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	tail := 1 - p
	hi := 1.0
	for upperTailT(hi, df) > tail {
		hi *= 2
	}
	lo := 0.0
	for range 200 {
		mid := (lo + hi) / 2
		if upperTailT(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-13*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// upperTailT is P(T > t) for t ≥ 0: ½ · I_{df/(df+t²)}(df/2, ½).
func upperTailT(t, df float64) float64 {
	return 0.5 * regularizedIncompleteBeta(df/(df+t*t), df/2, 0.5)
}

// regularizedIncompleteBeta is I_x(a, b), evaluated by its continued
// fraction on whichever side of the mean it converges fast (Numerical
// Recipes §6.4).
func regularizedIncompleteBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	front := math.Exp(lgab - lga - lgb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(x, a, b) / a
	}
	return 1 - front*betaContinuedFraction(1-x, b, a)/b
}

// betaContinuedFraction evaluates the incomplete beta continued fraction
// by the modified Lentz method.
func betaContinuedFraction(x, a, b float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 10000; m++ {
		even := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / guard(1+even*d)
		c = guard(1 + even/c)
		h *= d * c
		odd := -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / guard(1+odd*d)
		c = guard(1 + odd/c)
		step := d * c
		h *= step
		if math.Abs(step-1) < eps {
			break
		}
	}
	return h
}

// twoSidedPT is the two-sided p-value of a t statistic t with df degrees
// of freedom, P(|T| ≥ |t|); NaN for a NaN t or df ≤ 0.
func twoSidedPT(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	return math.Min(1, 2*upperTailT(math.Abs(t), df))
}

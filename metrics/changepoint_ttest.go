package metrics

import (
	"math"
)

// pooledTTest is the two-sided p-value of Student's two-sample t-test (pooled
// variance) between a and b: Hunter's significance test, exact with the
// few values a history has. The pooled variance is Otava's, built from
// each side's population variance (Σ(x−m)²/n, where the textbook takes
// the sample variance, Σ(x−m)²/(n−1)): Otava hands numpy's default
// standard deviation to scipy's test. It makes a short segment look a
// little more significant; kept so the test is the one Otava users know,
// and because bench/otava measured the textbook variance finding fewer
// true change points than Otava (docs/compare.md, "Change points"). Two
// values in all test nothing (1); two segments without spread are apart
// for sure when their means differ (0) and alike when they do not (1).
func pooledTTest(a, b []float64) float64 {
	na, nb := float64(len(a)), float64(len(b))
	if len(a) == 0 || len(b) == 0 || na+nb <= 2 {
		return 1
	}
	ma, mb := mean(a), mean(b)
	df := na + nb - 2
	pooled := ((na-1)*squares(a, ma)/na + (nb-1)*squares(b, mb)/nb) / df
	se := math.Sqrt(pooled * (1/na + 1/nb))
	diff := math.Abs(mb - ma)
	switch {
	case diff == 0:
		return 1
	case se == 0:
		return 0
	}
	return twoSidedPT(diff/se, df)
}

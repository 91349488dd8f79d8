package calibrate

import "math"

// Z95 is the standard normal quantile for a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval of a proportion k/n at z (Z95 for
// 95%). It is used instead of the textbook p ± z·√(p(1−p)/n) because the
// rates measured here are near 0 or 1, where that interval collapses to a
// point (0/150 would claim 0% ± 0) or leaves [0, 1]; Wilson's stays
// inside and keeps close to its nominal coverage for small k.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, center-half), math.Min(1, center+half)
}

package genaiperf

import (
	"math"
	"strconv"
	"strings"
)

// pyRepr formats f exactly as Python's repr(float): the shortest digits that
// round-trip, always with a decimal point or exponent ("12.0", not "12"),
// and scientific notation only when the decimal exponent is below -4 or at
// least 16 ("1e-05", "1.5e+16"). GenAI-Perf's files are written by
// json.dumps, which uses repr, so this is what makes our JSON byte-identical.
func pyRepr(f float64) string {
	if s, ok := specialFloat(f, "nan", "inf"); ok {
		return s
	}
	// Go's shortest 'e' form has the same digits as Python's repr (both
	// pick the shortest round-tripping string closest to the value) and
	// the same exponent spelling (sign, at least two digits).
	s := strconv.FormatFloat(f, 'e', -1, 64)
	digits, exp, neg := splitExp(s)
	if exp < -4 || exp >= 16 {
		return s
	}
	return sign(neg) + placePoint(digits, exp+1, ".0")
}

// specialFloat spells the values that have no digits — NaN, ±infinity in
// the writer's own words — and signed zeros; ok is false for other values.
func specialFloat(f float64, nan, inf string) (string, bool) {
	switch {
	case math.IsNaN(f):
		return nan, true
	case math.IsInf(f, 1):
		return inf, true
	case math.IsInf(f, -1):
		return "-" + inf, true
	case f == 0 && math.Signbit(f):
		return "-0.0", true
	case f == 0:
		return "0.0", true
	}
	return "", false
}

// splitExp splits Go's 'e' format ("-1.2345e+06") into its significant
// digits ("12345"), decimal exponent (6) and sign.
func splitExp(s string) (digits string, exp int, neg bool) {
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, e, _ := strings.Cut(s, "e")
	exp, _ = strconv.Atoi(e)
	return strings.Replace(mant, ".", "", 1), exp, neg
}

// placePoint writes digits with the decimal point after `point` digits
// (point ≤ 0 means leading zeros after "0."); intSuffix is appended when
// the number has no fractional digits.
func placePoint(digits string, point int, intSuffix string) string {
	switch {
	case point <= 0:
		return "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits)) + intSuffix
	default:
		return digits[:point] + "." + digits[point:]
	}
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

// pyJSONFloat is pyRepr as json.dumps applies it: non-finite values become
// the JavaScript literals json.dumps writes by default (allow_nan=True).
func pyJSONFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyRepr(f)
}

// pyComma2 formats f as Python's f"{f:,.2f}": two decimals, correctly
// rounded (ties to even on the exact binary value, as Go also does), and a
// comma between thousands. GenAI-Perf uses it for every number in its CSV
// and console table.
func pyComma2(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign(neg) + b.String() + "." + frac
}

// rapidFloat formats f as rapidjson's Writer::Double, which perf_analyzer
// uses for profile_export.json ("10.0", "0.001", "1e-7", "1.5e30"): fixed
// notation for decimal exponents from -7 to 20, no "+" or zero padding in
// exponents. rapidjson's Grisu2 digits are shortest in all but rare cases;
// the shortest digits are used here.
func rapidFloat(f float64) string {
	if s, ok := specialFloat(f, "NaN", "Infinity"); ok {
		return s
	}
	digits, exp, neg := splitExp(strconv.FormatFloat(f, 'e', -1, 64))
	point := exp + 1 // rapidjson's kk
	if point > -6 && point <= 21 {
		return sign(neg) + placePoint(digits, point, ".0")
	}
	mant := digits[:1]
	if len(digits) > 1 {
		mant += "." + digits[1:]
	}
	return sign(neg) + mant + "e" + strconv.Itoa(exp)
}

package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
)

// Signed is a change as a signed percentage, "–" when unknown.
func Signed(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

// Unsigned is a share as a percentage, "–" when unknown, "∞" when no
// change could be detected.
func Unsigned(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// Rate is "k/n = x.x%".
func Rate(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %.1f%%", k, n, 100*float64(k)/float64(n))
}

// Interval is the 95% Wilson interval of k/n as "lo%–hi%".
func Interval(k, n int) string {
	lo, hi := Wilson(k, n, Z95)
	return fmt.Sprintf("%.1f%%–%.1f%%", 100*lo, 100*hi)
}

// Pct writes a share as compact percent: 0.05 → "5%", 0.125 → "12.5%".
func Pct(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e4, 'f', -1, 64) + "%"
}

// Median is the middle value of v (NaN for none); +Inf sorts last.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ReplaceInDoc puts md between the lines "<!-- NAME -->" and
// "<!-- /NAME -->" of the file at path, so a document quotes exactly
// what a calibration wrote and is regenerated, never retyped. Both
// markers must be there, once each, in that order.
func ReplaceInDoc(path, name, md string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	open, end := []byte("<!-- "+name+" -->\n"), []byte("<!-- /"+name+" -->\n")
	i, j := bytes.Index(doc, open), bytes.Index(doc, end)
	if i < 0 || j < i || bytes.Count(doc, open) != 1 || bytes.Count(doc, end) != 1 {
		return fmt.Errorf("-doc %s: want one line %q and, after it, one line %q", path, bytes.TrimSpace(open), bytes.TrimSpace(end))
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(open)])
	out.WriteString(md)
	out.Write(doc[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}

package metrics

import "github.com/llmbench/llmbench/metrics/studentt"

// studentTQuantile is the p-quantile of Student's t with df degrees of
// freedom (studentt.Quantile): the critical value of a confidence
// interval from a few repeats, wider than the normal one as few runs
// warrant.
func studentTQuantile(p, df float64) float64 { return studentt.Quantile(p, df) }

// upperTailT is P(T > t) for t ≥ 0 (studentt.UpperTail).
func upperTailT(t, df float64) float64 { return studentt.UpperTail(t, df) }

// Package changepoint finds where the level of a series shifted: the runs
// of a nightly history at which a metric moved to a new level and stayed
// there. It owns the method and nothing else: E-divisive means
// (Matteson & James 2014) in the variant of Hunter (Fleming et al.,
// ICPE 2023) that Apache Otava runs, with its significance test and a
// minimum magnitude.
//
// The method, step by step (docs/compare.md, "Change points"):
//
//  1. Split. Overlapping windows of Options.Window values (a step of half
//     a window) are each cut recursively at the split that maximises
//     E-divisive's divergence q̂ between the values before and after it,
//     while the split's Student t-test (pooled variance, two-sided)
//     between its neighbouring segments is significant at a relaxed level
//     (10 × MaxPValue below 0.05, as Otava): these are the weak change
//     points, the union over all windows.
//  2. Merge. Each weak point is re-tested between its neighbouring change
//     points over the whole series; the weakest (highest p-value, else the
//     smallest relative shift) is removed while it fails MaxPValue or
//     MinMagnitude, its neighbours re-tested after each removal.
//
// It is deterministic: Otava's original E-divisive significance test is a
// permutation test (random); Hunter replaced it with the t-test, which
// needs no random draws and works with a handful of runs, and this
// package uses the t-test throughout, with Otava's pooled variance
// (tTest says why). One detail differs from Otava 0.8.0, on purpose: after
// the merge step removes a point, both its neighbours are re-tested (Otava
// re-tests the next two, leaving the previous point's statistics stale,
// as if the removed point still bounded its segment). bench/otava
// measures the result against Otava itself: more true change points and
// fewer false ones on otava-test-data's patterns.
//
// It imports nothing of llmbench but the Student t distribution
// (metrics/studentt).
package changepoint

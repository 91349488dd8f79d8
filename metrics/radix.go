package metrics

import "slices"

// sortInt64s sorts v in place, ascending. A run pools one chunk gap per
// token (gapValues), hundreds of thousands of them, and slices.Sort's
// n log n comparisons of those as floats were 2% of a whole `profile`
// process's CPU; this is a least-significant-byte radix sort, linear in
// len(v), that skips every pass whose byte is the same in all values (the
// high bytes of durations), so gaps of nanoseconds take three or four
// passes. The order is the one slices.Sort gives: equal values are equal.
func sortInt64s(v []int64) {
	if len(v) < 1024 { // below this the passes cost more than they save
		slices.Sort(v)
		return
	}
	var counts [8][256]int
	for _, x := range v {
		k := radixKey(x)
		for pass := range counts {
			counts[pass][byte(k>>(8*pass))]++
		}
	}
	src, dst := v, make([]int64, len(v))
	for pass := range counts {
		count := &counts[pass]
		shift := 8 * pass
		if count[byte(radixKey(src[0])>>shift)] == len(src) {
			continue // every value has this byte: the pass would not move one
		}
		next := 0
		for b, n := range count {
			count[b] = next
			next += n
		}
		for _, x := range src {
			b := byte(radixKey(x) >> shift)
			dst[count[b]] = x
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
}

// radixKey orders int64s as unsigned integers order their keys: the sign
// bit flipped puts negatives first.
func radixKey(x int64) uint64 { return uint64(x) ^ 1<<63 }

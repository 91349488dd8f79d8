package metrics

import (
	"slices"
	"unsafe"
)

// sortInt64s sorts v in place, ascending. A run pools one chunk gap per
// token (gapValues), hundreds of thousands of them, and slices.Sort's
// n log n comparisons of those as floats were 2% of a whole `profile`
// process's CPU; this is a least-significant-byte radix sort, linear in
// len(v), that skips every pass whose byte is the same in all values (the
// high bytes of durations), so gaps of nanoseconds take three or four
// passes. The order is the one slices.Sort gives: equal values are equal.
func sortInt64s(v []int64) {
	if len(v) < radixMinLen {
		slices.Sort(v)
		return
	}
	if sorted := radixSort(v, make([]int64, len(v))); &sorted[0] != &v[0] {
		copy(v, sorted)
	}
}

// radixMinLen is the length below which the radix passes cost more than
// they save: shorter slices are sorted by slices.Sort.
const radixMinLen = 1024

// sortedFloats is v's values ascending, as float64s; v is left as it is
// (the pooled gaps' order is what their chunk times are read back from,
// Accumulator.chunkTimes). The values are sorted in a copy, with the radix
// sort's scratch beside it, and the floats are written over whichever of
// the two holds the sorted values (both are 8-byte values without
// pointers), so millions of gaps take two arrays of their size, not three.
func sortedFloats(v []int64) []float64 {
	if len(v) == 0 {
		return nil
	}
	sorted := slices.Clone(v)
	if len(sorted) < radixMinLen {
		slices.Sort(sorted)
	} else {
		sorted = radixSort(sorted, make([]int64, len(sorted)))
	}
	floats := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(sorted))), len(sorted))
	for i, x := range sorted { // in place: each value read before it is written
		floats[i] = float64(x)
	}
	return floats
}

// radixSort sorts v's values into v or scratch (as long as v) and returns
// the one that holds them; the other is left with some order of them.
func radixSort(v, scratch []int64) []int64 {
	var counts [8][256]int
	for _, x := range v {
		k := radixKey(x)
		for pass := range counts {
			counts[pass][byte(k>>(8*pass))]++
		}
	}
	src, dst := v, scratch
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
	return src
}

// radixKey orders int64s as unsigned integers order their keys: the sign
// bit flipped puts negatives first.
func radixKey(x int64) uint64 { return uint64(x) ^ 1<<63 }

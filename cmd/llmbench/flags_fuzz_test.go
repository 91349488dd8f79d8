package main

import (
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/gpflags"
)

// refused checks that a flag value was refused as invalid input (exit 2)
// naming its flag.
func refused(t *testing.T, err error, flag string) {
	t.Helper()
	if exitCode(err, io.Discard) != exitInvalidInput || !strings.Contains(err.Error(), flag) {
		t.Fatalf("error %q: want exit 2 naming %s", err, flag)
	}
}

var sweepTypes = []string{"concurrency", "request_rate", "input_sequence_length", "output_sequence_length", "batch_size", "x"}

// FuzzSweepRange: --sweep-range MIN:MAX[:STEP] is refused naming the
// flag, or gives a bounded number of points in ascending order: with a
// step, lo, lo+step, ... up to max; without, the powers of two from the
// one at or below min to the one at or below max (GenAI-Perf's rule), all
// within min:max for concurrency, whose bounds must be powers of two.
func FuzzSweepRange(f *testing.F) {
	for _, s := range []string{"1:256", "4:64", "3:100", "1:10:3", "100:300:100", "0:8", "8:8", "1:8:0", "1.5:8", " 2 : 16 ",
		"1:9223372036854775807:1", "1:9223372036854775807:4611686018427387904", "4611686018427387904:9223372036854775807"} {
		f.Add(uint8(0), s)
		f.Add(uint8(1), s)
	}
	f.Fuzz(func(t *testing.T, typ uint8, rng string) {
		kind := sweepTypes[int(typ)%len(sweepTypes)]
		spec, err := parseSweep(kind, rng, "")
		if err != nil {
			refused(t, err, "--sweep")
			return
		}
		if rng == "" {
			rng = gpflags.DefaultSweepRange
		}
		lo, hi, step, err := gpflags.CheckSweepRange(spec.kind.name, rng)
		if err != nil {
			t.Fatalf("parseSweep accepted %q, gpflags.CheckSweepRange refuses it: %v", rng, err)
		}
		v := spec.values
		if len(v) == 0 || len(v) > gpflags.MaxSweepPoints || !slices.IsSorted(v) || len(slices.Compact(slices.Clone(v))) != len(v) {
			t.Fatalf("%s %q gave %d points %v: want 1 to %d ascending", kind, rng, len(v), clipFloats(v), gpflags.MaxSweepPoints)
		}
		if step > 0 {
			if len(v) != (hi-lo)/step+1 {
				t.Fatalf("%s %q gave %d points, want %d", kind, rng, len(v), (hi-lo)/step+1)
			}
			for i, x := range v {
				if x != float64(lo+i*step) {
					t.Fatalf("%s %q: point %d is %v, want %d", kind, rng, i, x, lo+i*step)
				}
			}
			return
		}
		if v[0] != float64(uint64(1)<<(bits.Len(uint(lo))-1)) || v[len(v)-1] != float64(uint64(1)<<(bits.Len(uint(hi))-1)) ||
			kind == "concurrency" && (v[0] != float64(lo) || v[len(v)-1] != float64(hi)) {
			t.Fatalf("%s %q gave %v", kind, rng, clipFloats(v))
		}
	})
}

// FuzzSweepList: --sweep-list is refused naming the flag, or gives
// distinct positive finite values in the order given, integers for every
// sweep but the request rate.
func FuzzSweepList(f *testing.F) {
	for _, s := range []string{"1,2,4", "0.5, 2,10", "64,16,256", "1,2.5", "1,0", "1,,2", "1,2,1", "1e308,1e309", "0x10", "NaN", " 3 "} {
		f.Add(uint8(0), s)
		f.Add(uint8(1), s)
	}
	f.Fuzz(func(t *testing.T, typ uint8, list string) {
		kind := sweepTypes[int(typ)%len(sweepTypes)]
		spec, err := parseSweep(kind, "", list)
		if err != nil {
			refused(t, err, "--sweep")
			return
		}
		if list == "" {
			return // no list: the default range, FuzzSweepRange's business
		}
		seen := map[float64]bool{}
		for _, v := range spec.values {
			if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) || seen[v] || !spec.kind.fractional && v != math.Trunc(v) {
				t.Fatalf("%s %q gave %v", kind, list, spec.values)
			}
			seen[v] = true
		}
		if len(spec.values) != strings.Count(list, ",")+1 {
			t.Fatalf("%s %q gave %d values", kind, list, len(spec.values))
		}
	})
}

func clipFloats(v []float64) []float64 {
	if len(v) > 8 {
		return append(slices.Clone(v[:4]), v[len(v)-4:]...)
	}
	return v
}

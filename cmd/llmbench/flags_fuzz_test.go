package main

import (
	"encoding/json"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refused checks that a flag value was refused as invalid input (exit 2)
// naming its flag.
func refused(t *testing.T, err error, flag string) {
	t.Helper()
	if exitCode(err, io.Discard) != exitInvalidInput || !strings.Contains(err.Error(), flag) {
		t.Fatalf("error %q: want exit 2 naming %s", err, flag)
	}
}

// FuzzExtraInputs: --extra-inputs values are refused naming the flag, or
// become fields with distinct names, each value valid JSON (it is pasted
// into every request body).
func FuzzExtraInputs(f *testing.F) {
	for _, s := range [][2]string{{"max_tokens:256", "ignore_eos:true"}, {"temperature:0.7", "stop"}, {"x:-1", "y:007"},
		{`{"top_p": 0.9, "n": {"a": [1]}}`, "z:1."}, {"a:1", "a:2"}, {`{"a":1`, ""}, {":v", "w"}, {"b:" + strings.Repeat("9", 400) + ".5", "c:1e5"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		fields, err := parseExtraInputs([]string{a, b})
		if err != nil {
			refused(t, err, "--extra-inputs")
			return
		}
		seen := map[string]bool{}
		for _, fl := range fields {
			if strings.TrimSpace(fl.Key) == "" || seen[fl.Key] || !json.Valid(fl.Value) {
				t.Fatalf("%q %q gave field %q = %s: want a distinct name and valid JSON", a, b, fl.Key, fl.Value)
			}
			seen[fl.Key] = true
		}
	})
}

// isToken reports whether s is an HTTP field name (RFC 9110 token),
// written here independently of runtime.CheckHeader.
func isToken(s string) bool {
	const tchar = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(tchar, s[i]) < 0 {
			return false
		}
	}
	return s != ""
}

// FuzzHeader: -H values are refused naming the flag, without showing the
// value (a credential), or give one header whose name is an HTTP token and
// whose value holds no line break or other control character (no request
// smuggling through a flag), and which reads back the same from its
// canonical "Name: Value" form.
func FuzzHeader(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer a:b", "Accept:x, y", "no-colon", " X-Pad :  v  ", "X-A: 1\r\nEvil: 2",
		"Bad Name: x", "X:\x00", "X-Ü: v", "X: caf\u00e9\t", ": v", "Authorization: Bearer sk-secret\r\nX: y", "Bad(Name): sk-secret"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		h, err := parseHeaders([]string{spec})
		if err != nil {
			refused(t, err, "--header")
			// The name is shown (quoted, and in a value's complaint as is);
			// whatever else the message says must not hold the value.
			name, value, ok := strings.Cut(spec, ":")
			rest := strings.ReplaceAll(err.Error(), strconv.Quote(name+": <redacted>"), "")
			rest = strings.ReplaceAll(rest, strings.TrimSpace(name), "")
			if v := strings.TrimSpace(value); ok && len(v) > 3 && strings.Contains(rest, v) {
				t.Fatalf("error %q shows the header's value", err)
			}
			return
		}
		if len(h) != 1 || !isToken(h[0].Name) || strings.ContainsFunc(h[0].Value, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
			t.Fatalf("%q gave %+v: want one header, a token name and a value without control characters", spec, h)
		}
		again, err := parseHeaders([]string{h[0].Name + ": " + h[0].Value})
		if err != nil || len(again) != 1 || again[0] != h[0] {
			t.Fatalf("%q gave %+v, whose canonical form gives %+v, %v", spec, h[0], again, err)
		}
	})
}

// FuzzGoodput: --goodput values are refused naming the flag, or give an
// SLO with a finite bound >= 0 that reads back from name:value.
func FuzzGoodput(f *testing.F) {
	for _, s := range []string{"ttft:500", "time_to_first_token:1.5", "itl:2", "request_latency: 1e3", "output_token_throughput_per_user:10",
		"ttft", "nope:1", "ttft:-1", "ttft:NaN", "ttft:inf", "ttft:0x1p3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		slos, err := parseGoodput([]string{spec})
		if err != nil {
			refused(t, err, "--goodput")
			return
		}
		s := slos[0]
		if len(slos) != 1 || s.Value < 0 || math.IsInf(s.Value, 0) || math.IsNaN(s.Value) {
			t.Fatalf("%q gave %+v", spec, slos)
		}
		again, err := parseGoodput([]string{string(s.Metric) + ":" + strconv.FormatFloat(s.Value, 'g', -1, 64)})
		if err != nil || again[0] != s {
			t.Fatalf("%q gave %+v, which reads back as %+v, %v", spec, s, again, err)
		}
	})
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
			rng = defaultSweepRange
		}
		lo, hi, step, err := parseSweepRange(spec.kind, rng)
		if err != nil {
			t.Fatalf("parseSweep accepted %q, parseSweepRange refuses it: %v", rng, err)
		}
		v := spec.values
		if len(v) == 0 || len(v) > maxSweepPoints || !slices.IsSorted(v) || len(slices.Compact(slices.Clone(v))) != len(v) {
			t.Fatalf("%s %q gave %d points %v: want 1 to %d ascending", kind, rng, len(v), clipFloats(v), maxSweepPoints)
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

// FuzzNormalizeArgs: rewriting GenAI-Perf's multi-value flags for kong is
// idempotent, and a bare -- is always the end of the flags, never a flag's
// value: what comes before it is rewritten as it would be alone, and what
// comes after it is left as it was. (`-m --` took the -- as a model name,
// so `-m -- x` gave `-m -- -m x`: x became a second model instead of
// reaching the passthrough check.)
func FuzzNormalizeArgs(f *testing.F) {
	for _, s := range []string{"profile -m a b --goodput ttft:1 itl:2 --fixed-schedule True --streaming -g x:1 -- -m c d",
		"analyze -m", "-g -g a", "--fixed-schedule 0 --fixed-schedule", "-- --", "-m a -- b", "-m -- x y", "profile -g -- -m a",
		"--fixed-schedule -- true"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		out := normalizeArgs(args)
		if again := normalizeArgs(out); !slices.Equal(again, out) {
			t.Fatalf("%q → %q → %q", args, out, again)
		}
		i := slices.Index(args, "--")
		if i < 0 {
			return
		}
		before := normalizeArgs(args[:i])
		if want := append(append(before, "--"), args[i+1:]...); !slices.Equal(out, want) {
			t.Fatalf("%q → %q, want %q: a bare -- ends the flags", args, out, want)
		}
	})
}

func clipFloats(v []float64) []float64 {
	if len(v) > 8 {
		return append(slices.Clone(v[:4]), v[len(v)-4:]...)
	}
	return v
}

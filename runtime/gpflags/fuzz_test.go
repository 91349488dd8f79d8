package gpflags

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/failure"
)

// refused checks that a flag value was refused as invalid input (exit 2)
// naming its flag.
func refused(t *testing.T, err error, flag string) {
	t.Helper()
	if failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), flag) {
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
		fields, err := ParseExtraInputs([]string{a, b})
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
		h, err := ParseHeaders([]string{spec})
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
		again, err := ParseHeaders([]string{h[0].Name + ": " + h[0].Value})
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
		slos, err := ParseGoodput([]string{spec})
		if err != nil {
			refused(t, err, "--goodput")
			return
		}
		s := slos[0]
		if len(slos) != 1 || s.Value < 0 || math.IsInf(s.Value, 0) || math.IsNaN(s.Value) {
			t.Fatalf("%q gave %+v", spec, slos)
		}
		again, err := ParseGoodput([]string{string(s.Metric) + ":" + strconv.FormatFloat(s.Value, 'g', -1, 64)})
		if err != nil || again[0] != s {
			t.Fatalf("%q gave %+v, which reads back as %+v, %v", spec, s, again, err)
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
		out := NormalizeArgs(args)
		if again := NormalizeArgs(out); !slices.Equal(again, out) {
			t.Fatalf("%q → %q → %q", args, out, again)
		}
		i := slices.Index(args, "--")
		if i < 0 {
			return
		}
		before := NormalizeArgs(args[:i])
		if want := append(append(before, "--"), args[i+1:]...); !slices.Equal(out, want) {
			t.Fatalf("%q → %q, want %q: a bare -- ends the flags", args, out, want)
		}
	})
}

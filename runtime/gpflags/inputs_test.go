package gpflags

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/failure"
)

// GenAI-Perf's --extra-inputs coercion (subcommand/common.py).
func TestParseExtraInputs(t *testing.T) {
	fields, err := ParseExtraInputs([]string{
		"ignore_eos:true", "max_tokens:0128", "temperature:0.5", "top_p:1.", "seed:-1",
		"stop:a,b", "bare", `{"nested":{"x":[1,2]},"flag":false}`, "mixed:1.2.3",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		got = append(got, f.Key+"="+string(f.Value))
	}
	want := []string{"ignore_eos=true", "max_tokens=128", "temperature=0.5", "top_p=1.0", `seed="-1"`,
		`stop="a,b"`, "bare=null", `nested={"x":[1,2]}`, "flag=false", `mixed="1.2.3"`}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for _, bad := range [][]string{{"a:1", "a:2"}, {`{"a":1`}, {"a:1", `{"a":2}`}} {
		if _, err := ParseExtraInputs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders([]string{"Authorization: Bearer a:b", "Accept:x, y"})
	if err != nil || h[0].Name != "Authorization" || h[0].Value != "Bearer a:b" || h[1].Value != "x, y" {
		t.Errorf("got %+v, %v", h, err)
	}
	if _, err := ParseHeaders([]string{"no-colon"}); err == nil {
		t.Error("header without a colon accepted")
	}
}

// argparse's nargs="+" lists become repeated flags for kong.
func TestNormalizeArgs(t *testing.T) {
	in := "profile -m a b --goodput ttft:1 itl:2 --fixed-schedule True --streaming -g x:1 -- -m c d"
	want := "profile -m a -m b --goodput ttft:1 --goodput itl:2 --fixed-schedule=true --streaming -g x:1 -- -m c d"
	if got := strings.Join(NormalizeArgs(strings.Fields(in)), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestParseHeadersRefusesInjection: the transport writes a header as
// given, so a line break in -H would add headers or a body to every
// request; names must be HTTP tokens. The error never shows the value.
func TestParseHeadersRefusesInjection(t *testing.T) {
	for spec, want := range map[string]string{
		"X-A: 1\r\nEvil: 2":   "its value holds a line break",
		"X-A: a\x00b":         "its value holds a line break",
		"X-A\r\nEvil: 2":      "want a header name of letters",
		"X-Ü: v":              "want a header name of letters",
		"X(a): v":             "want a header name of letters",
		"Authorization: \x7f": "its value holds a line break",
	} {
		_, err := ParseHeaders([]string{spec})
		if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Evil: 2") {
			t.Errorf("%q: %v, want exit 2 with %q and no value", spec, err, want)
		}
	}
	h, err := ParseHeaders([]string{"X-Trace:  caf\u00e9\tok \r\n"})
	if err != nil || h[0].Value != "caf\u00e9\tok" {
		t.Errorf("got %+v, %v: want non-ASCII and tabs inside a value kept, surrounding space trimmed", h, err)
	}
}

// TestExtraInputsFloatOutOfRange: a float too large for float64 became
// "+Inf.0" pasted into every request body as invalid JSON.
func TestExtraInputsFloatOutOfRange(t *testing.T) {
	_, err := ParseExtraInputs([]string{"temperature:1" + strings.Repeat("0", 400) + ".5"})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), "too large for a float") {
		t.Errorf("err %v", err)
	}
}

package genaiperf

import (
	"encoding/json"
	"math"
	"testing"
)

// TestPythonIndentEncoding matches json.dumps(v, indent=2) as printed by
// CPython for the same value.
func TestPythonIndentEncoding(t *testing.T) {
	v := (&object{}).
		set("a", []any{}).
		set("b", &object{}).
		set("c", []any{1, (&object{}).set("d", nil).set("e", true)}).
		set("f", 1e-05).
		set("g", 1e16).
		set("h", math.Copysign(0, -1)).
		set("i", math.NaN())
	want := "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null,\n      \"e\": true\n    }\n  ],\n" +
		"  \"f\": 1e-05,\n  \"g\": 1e+16,\n  \"h\": -0.0,\n  \"i\": NaN\n}"
	got, err := marshal(v, pythonIndent)
	if err != nil || string(got) != want {
		t.Fatalf("got %s (%v)\nwant %s", got, err, want)
	}
}

func TestStringEscaping(t *testing.T) {
	s := "é😀\x01\x7f\"\\/\n\t\u2028\x1f"
	for style, want := range map[jsonStyle]string{
		// json.dumps: ensure_ascii, lower-case hex, surrogate pairs.
		pythonIndent: `"\u00e9\ud83d\ude00\u0001\u007f\"\\/\n\t\u2028\u001f"`,
		// rapidjson: control characters only, upper-case hex.
		rapidCompact: "\"é😀\\u0001\x7f\\\"\\\\/\\n\\t\u2028\\u001F\"",
	} {
		if got := string(appendString(nil, s, style)); got != want {
			t.Errorf("style %d: got %s, want %s", style, got, want)
		}
	}
	if got := string(appendString(nil, "a\xffb", pythonIndent)); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: got %s", got)
	}
}

func TestCompactEncoding(t *testing.T) {
	v := (&object{}).set("mode", "request_rate").set("value", 10.0).set("x", []any{int64(1), intLit("2")})
	got, _ := marshal(v, rapidCompact)
	if want := `{"mode":"request_rate","value":10.0,"x":[1,2]}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestParseOrdered matches json.dumps(json.loads(s), indent=2): key order
// kept, a repeated key keeps its first place and last value, integers
// verbatim (any size), other numbers as Python floats.
func TestParseOrdered(t *testing.T) {
	in := `{"b":1,"a":2,"b":3,"x":1e5,"y":-0,"z":12345678901234567890123,"w":1.0E+2}`
	want := "{\n  \"b\": 3,\n  \"a\": 2,\n  \"x\": 100000.0,\n  \"y\": 0,\n  \"z\": 12345678901234567890123,\n  \"w\": 100.0\n}"
	v, err := parseOrdered([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := marshal(v, pythonIndent)
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	for _, bad := range []string{`{"a":1} x`, `{"a":`, `[1,]`, ``} {
		if _, err := parseOrdered([]byte(bad)); err == nil {
			t.Errorf("parseOrdered(%q) succeeded", bad)
		}
	}
}

func TestEncodeUnsupportedType(t *testing.T) {
	if _, err := marshal((&object{}).set("k", struct{}{}), pythonIndent); err == nil {
		t.Fatal("want an error for an unsupported type")
	}
}

// FuzzAppendString: in both styles every string encodes to a JSON string
// that decodes back to it (invalid UTF-8 bytes as U+FFFD).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "é😀\x01\x7f", "\xff\xfe", "\u2028\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string([]rune(s)) // each invalid byte becomes U+FFFD
		for _, style := range []jsonStyle{pythonIndent, rapidCompact} {
			var got string
			if err := json.Unmarshal(appendString(nil, s, style), &got); err != nil {
				t.Fatalf("style %d: %v", style, err)
			}
			if got != want {
				t.Fatalf("style %d: %q decodes to %q", style, s, got)
			}
		}
	})
}

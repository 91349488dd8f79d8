package transport

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMessage(t *testing.T) {
	euro := strings.Repeat("€", 100) // 300 bytes
	cases := []struct{ in, want string }{
		{"  engine died\n", "engine died"},
		{"line one\nline two\ttab\r\n", "line one line two tab"},
		{"gzip \x1f\x8b\x08\x00", `gzip \x1f\x8b\x08\x00`},
		{"bell\x07 del\x7f c1\u0085.", `bell\x07 del\x7f c1\u0085.`},
		{"x" + euro, "x" + strings.Repeat("€", 66) + "…"}, // 199 bytes: the next € would pass 200
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{strings.Repeat("a", 201), strings.Repeat("a", 200) + "…"},
		{"ok ✓ ü", "ok ✓ ü"},
	}
	for _, tc := range cases {
		got := message(tc.in)
		if got != tc.want {
			t.Errorf("message(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if !utf8.ValidString(got) || len(got) > maxMessage+len("…") {
			t.Errorf("message(%q) = %q: not valid or too long", tc.in, got)
		}
	}
}

// Invalid bytes become U+FFFD and the chunk ends move with them; a
// character split across chunks is valid once joined and left alone.
func TestValidText(t *testing.T) {
	cases := []struct {
		out      string
		ends     []int32
		want     string
		wantEnds []int32
	}{
		{"a€b", []int32{2, 5}, "a€b", []int32{2, 5}},
		{"a\xffb\xfe", []int32{2, 4}, "a\uFFFDb\uFFFD", []int32{4, 8}},
		{"\xff\xff", []int32{1, 2}, "\uFFFD\uFFFD", []int32{3, 6}},
		{"ok\xe2\x82", []int32{2, 4}, "ok\uFFFD\uFFFD", []int32{2, 8}},
		{"", nil, "", nil},
	}
	for _, tc := range cases {
		ends := append([]int32(nil), tc.ends...)
		got := validText([]byte(tc.out), ends)
		if got != tc.want || !equalEnds(ends, tc.wantEnds) {
			t.Errorf("validText(%q, %v) = %q, %v; want %q, %v", tc.out, tc.ends, got, ends, tc.want, tc.wantEnds)
		}
	}
}

func equalEnds(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"256MiB": 256 << 20, "16MiB": 16 << 20, "1048576": 1 << 20, "16 mib": 16 << 20, "1GiB": 1 << 30,
		"512KiB": 512 << 10, "2KB": 2000, "3MB": 3e6, "1GB": 1e9, "10B": 10,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "-1MiB", "abc", "1.5MiB", "MiB", "1 TiB", "99999999999GiB", "0x10"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
	for n, want := range map[int64]string{256 << 20: "256MiB", 16 << 20: "16MiB", 1 << 30: "1GiB", 1536: "1536B", 3 << 10: "3KiB", 1000: "1000B"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		} else if back, _ := ParseSize(got); back != n {
			t.Errorf("ParseSize(FormatSize(%d)) = %d", n, back)
		}
	}
}

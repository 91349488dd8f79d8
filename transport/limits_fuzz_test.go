package transport

import (
	"strings"
	"testing"
)

// FuzzParseSize: a --max-response-size or --max-sse-line-size value is
// refused with a message quoting it, or is a size > 0 that reads the same
// in any letter case and that FormatSize writes in a form ParseSize reads
// back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"256MiB", "16 MiB", "1048576", "1kb", "0", "-1", "1.5MiB", "MiB", "9223372036854775807",
		"8589934592GiB", "8589934591GiB", "+5", " 7 B ", "0x10", "1_000", "1e6", "5iB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if n != 0 || !strings.Contains(err.Error(), "got \"") {
				t.Fatalf("%q: %d, %v: want 0 and an error quoting the value", s, n, err)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("%q gave %d", s, n)
		}
		for _, again := range []string{strings.ToUpper(s), strings.ToLower(s), FormatSize(n)} {
			if m, err := ParseSize(again); err != nil || m != n {
				t.Fatalf("%q gave %d, %q gives %d, %v", s, n, again, m, err)
			}
		}
	})
}

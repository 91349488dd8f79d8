package transport

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// FuzzTritonURL: a triton -u or endpoint(url=) value is refused with an
// error that never shows the password it may hold, or is a target whose
// address has a host and a port from 1 to 65535 and whose URL() reads
// back as the same target.
func FuzzTritonURL(f *testing.F) {
	for _, s := range []string{"localhost:8001", "grpc://h:8001", "grpcs://h", "h", "[::1]:8001", "http://h:8000", "grpc://",
		"grpc://u:s3cr3t@h:8001", "u:s3cr3t@h:8001", "grpc://h:99999", "grpc://h:", "grpc://h/x", "grpc://h?q=1", " h:1 ", "grpc://[::1",
		"::1", "0]0000", "\"0:000000@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		target, err := ParseTritonURL(raw)
		if err != nil {
			if userinfo, _, ok := strings.Cut(raw, "@"); ok {
				_, userinfo, _ = strings.Cut("://"+userinfo, "://")
				if _, pw, ok := strings.Cut(userinfo, ":"); ok && len(pw) > 3 && strings.Count(raw, pw) == 1 &&
					!strings.Contains(userinfo, "/") && strings.Contains(err.Error(), pw) {
					t.Fatalf("%q: error %q shows the password %q", raw, err, pw)
				}
			}
			return
		}
		host, port, err := net.SplitHostPort(target.Addr)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			t.Fatalf("%q gave the address %q", raw, target.Addr)
		}
		if again, err := ParseTritonURL(target.URL()); err != nil || again != target {
			t.Fatalf("%q gave %+v, whose URL %q reads as %+v, %v", raw, target, target.URL(), again, err)
		}
	})
}

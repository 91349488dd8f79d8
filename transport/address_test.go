package transport

import (
	"strings"
	"testing"
)

// An address is refused when no request could ever be sent to it, a port
// out of range included; the error never repeats the URL (it may hold a
// password).
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://127.0.0.1:8000", ""},
		{"https://api.example.com/v1", ""},
		{"http://[::1]:65535", ""},
		{"http://h:1/x", ""},
		{"http://u:s3cret@h:99999", `port "99999" is not a number from 1 to 65535`},
		{"http://h:0", `port "0"`},
		{"http://h:", `port ""`},
		{"http://h:abc", `invalid port ":abc"`},
		{"http://[::1]:70000", `port "70000"`},
		{"ftp://h:21", `scheme "ftp"`},
		{"http://:8000", "no host"},
	} {
		err := CheckURL(tc.url)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.url, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.url, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: the error shows the password: %v", tc.url, err)
		}
	}
	if _, err := ParseTritonURL("grpc://h:0"); err == nil || !strings.Contains(err.Error(), `port "0"`) {
		t.Errorf("grpc://h:0: got %v, want the port refused", err)
	}
	if _, err := NewClient(Config{URL: "http://h:99999", API: Chat}, NewClock()); err == nil {
		t.Error("NewClient took port 99999")
	}
}

// The headers the client sets itself are refused in any case, with the
// reason; any other goes.
func TestCheckReservedHeader(t *testing.T) {
	for _, name := range []string{"Host", "host", "Content-Length", "TRANSFER-ENCODING"} {
		if err := CheckReservedHeader(name); err == nil || !strings.Contains(err.Error(), "llmbench") {
			t.Errorf("%s: got %v, want refused with the reason", name, err)
		}
		if _, err := NewClient(Config{URL: "http://h:1", API: Chat, Headers: []Header{{name, "x"}}}, NewClock()); err == nil {
			t.Errorf("NewClient took header %s", name)
		}
	}
	for _, name := range []string{"Authorization", "Content-Type", "X-Host", "Accept"} {
		if err := CheckReservedHeader(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

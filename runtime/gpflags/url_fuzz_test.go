package gpflags

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// secretsOf is what a -u value holds that must never be shown: the
// password of its user information and the values of credential-like
// query parameters, as url.Parse reads them (longer than 3 bytes, so a
// value that happens to be a common word is not mistaken for one).
func secretsOf(raw string) []string {
	var out []string
	// user:password@ before the host, read by hand too: a value url.Parse
	// reads otherwise ("user:pw@host:port" has the scheme "user") or not
	// at all still holds a password there.
	if userinfo, _, ok := strings.Cut(raw, "@"); ok {
		if _, after, ok := strings.Cut(userinfo, "://"); ok {
			userinfo = after
		}
		if _, pw, ok := strings.Cut(userinfo, ":"); ok && !strings.Contains(userinfo, "/") {
			out = append(out, pw)
		}
	}
	if u, err := url.Parse(runtime.BaseURL(raw)); err == nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		for name, vs := range u.Query() {
			if n := strings.ToLower(name); n == "api_key" || n == "token" || n == "key" {
				out = append(out, vs...)
			}
		}
	}
	var long []string
	for _, s := range out {
		if len(s) > 3 {
			long = append(long, s)
		}
	}
	return long
}

// shows reports whether the error refusing raw shows the secret s, which
// raw holds once: the same error for raw with s replaced does not hold it
// (else it is the message's own words).
func shows(err error, raw, s string) bool {
	if !strings.Contains(err.Error(), s) || strings.Count(raw, s) > 1 {
		return false
	}
	other := CheckURL(strings.ReplaceAll(raw, s, "\x01\x02\x03\x04"))
	return other == nil || !strings.Contains(other.Error(), s)
}

// FuzzURL: a -u value is refused as bad input (exit 2) naming --url and
// showing none of its credentials, or it is sim:// (FuzzSimConfig's
// business), or it is an http(s) URL with a host and a port from 1 to
// 65535 (none: the scheme's) that the client takes, whose redacted form
// holds no credential. GenAI-Perf's bare host:port is taken as http.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"localhost:8000", "http://127.0.0.1:8000/v1", "https://api.example.com", "sim://", "sim://?itl=5ms", "sim://admin:s3cr3t@h?itl=5ms",
		"http://", "http:///x", ":8000", "localhost:99999", "localhost:0", "localhost:", "http://[::1", "http://[::1]:8000",
		"ftp://x:1", "http://u:secret@127.0.0.1:1/x?api_key=sk-secret#frag", "u:secret@h://x", "admin:s3cr3t@localhost:99999", "http://a b:80", " ", "",
		"HTTP://h:1", "http://h:1?token=abcd", "http://h:+80", "http://h:0080", "grpc://h:8001", "0]0000", "http://[::1]]:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := CheckURL(raw)
		if err != nil {
			refused(t, err, "--url")
			for _, s := range secretsOf(raw) {
				if shows(err, raw, s) {
					t.Fatalf("%q: error %q shows the credential %q", raw, err, s)
				}
			}
			return
		}
		if strings.HasPrefix(raw, "sim://") {
			// Its settings are FuzzSimConfig's business; its refusal shows
			// no credential either.
			if _, err := runtime.SimConfig(raw); err != nil {
				for _, s := range secretsOf(raw) {
					if strings.Contains(err.Error(), s) && strings.Count(raw, s) == 1 {
						t.Fatalf("%q: error %q shows the credential %q", raw, err, s)
					}
				}
			}
			return
		}
		base := runtime.BaseURL(raw)
		u, perr := url.Parse(base)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("%q accepted as %q: %v", raw, base, perr)
		}
		if h, _, err := net.SplitHostPort(net.JoinHostPort(u.Hostname(), "80")); err != nil || h != u.Hostname() {
			t.Fatalf("%q accepted with the host %q, which no address can hold: %v", raw, u.Hostname(), err)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				t.Fatalf("%q accepted with port %q", raw, p)
			}
		} else if _, port, _ := net.SplitHostPort(u.Host); port != "" {
			t.Fatalf("%q accepted with port %q", raw, port)
		}
		c, err := transport.NewClient(transport.Config{URL: base, API: transport.Chat}, transport.NewClock())
		if err != nil {
			t.Fatalf("%q accepted, but the client refuses %q: %v", raw, base, err)
		}
		c.Close()
		r, err := url.Parse(plan.RedactURL(base))
		if err != nil || r.User != nil || r.Query().Has("api_key") || r.Query().Has("token") || r.Query().Has("key") {
			t.Fatalf("%q: redacted as %q (%v), which holds credentials", raw, plan.RedactURL(base), err)
		}
	})
}

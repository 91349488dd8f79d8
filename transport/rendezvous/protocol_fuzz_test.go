package rendezvous

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParseArrival: what shard 0 accepts from the network is exactly the
// one request shards send — GET /meet with a printable point of bounded
// length and 0 <= shard < count — and it reads back the same from the
// request a shard would build for it.
func FuzzParseArrival(f *testing.F) {
	for _, s := range [][3]string{
		{"GET", "/meet", "point=e+%2F+concurrency4&shard=1&count=2"},
		{"GET", "/meet", "count=4&point=p&shard=3"},
		{"GET", "/meet", "point=p&shard=2&count=2"},
		{"GET", "/meet", "point=p&shard=-1&count=2"},
		{"GET", "/meet", "point=p&shard=0&count=0"},
		{"GET", "/meet", "point=&shard=0&count=2"},
		{"GET", "/meet", "point=a&point=b&shard=0&count=2"},
		{"GET", "/meet", "point=%1b%5B2J&shard=0&count=2"},
		{"GET", "/meet", "point=p&shard=0&count=99999999999999999999"},
		{"GET", "/meet", "point=p;shard=0&count=2"},
		{"POST", "/meet", "point=p&shard=0&count=2"},
		{"GET", "/meet/", "point=p&shard=0&count=2"},
		{"GET", "/meet", "point=" + strings.Repeat("x", 1025) + "&shard=0&count=2"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, method, path, query string) {
		a, err := parseArrival(method, path, query)
		if err != nil {
			if a != (arrival{}) {
				t.Fatalf("refused %q but gave %+v", query, a)
			}
			return
		}
		if method != "GET" || path != "/meet" {
			t.Fatalf("accepted %s %s", method, path)
		}
		if a.shard < 0 || a.shard >= a.count || a.point == "" || len(a.point) > maxPointLen || !utf8.ValidString(a.point) ||
			strings.ContainsFunc(a.point, func(r rune) bool { return !unicode.IsPrint(r) }) {
			t.Fatalf("%q accepted as %+v", query, a)
		}
		u, err := url.Parse(meetURL("127.0.0.1:1", a))
		if err != nil {
			t.Fatal(err)
		}
		if back, err := parseArrival("GET", u.Path, u.RawQuery); err != nil || back != a {
			t.Fatalf("%+v reads back as %+v, %v", a, back, err)
		}
	})
}

// countingReader counts what is read through it.
type countingReader struct {
	r *bytes.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzReadAnswer: what a shard accepts from shard 0 (or from whatever
// answers at its address) is a 200 with a start after 1970; anything else
// is an error whose text is short and printable, so a hostile peer cannot
// flood or drive the terminal; and no more than maxAnswerBytes is read.
func FuzzReadAnswer(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{200, `{"start_unix_ns": 1764669600000000000}`},
		{200, `{"start_unix_ns": 7258118400000000000}`},
		{409, `{"error": "point p: shards [2] never arrived"}`},
		{401, `{"error": "barrier: missing or wrong token"}`},
		{200, `{"error": "\u001b[2Jboom", "start_unix_ns": 5}`},
		{200, `{"start_unix_ns": -1}`},
		{200, `{"start_unix_ns": 0}`},
		{200, `{"start_unix_ns": 1e300}`},
		{200, `{}`},
		{500, `<html>oops</html>`},
		{200, `{"start_unix_ns": 1764669600000000000, "extra": [1,2,3]} trailing`},
		{200, strings.Repeat(" ", 70<<10) + `{"start_unix_ns": 1}`},
		{200, `{"error": "` + strings.Repeat("\xff", 600) + `"}`},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		r := &countingReader{r: bytes.NewReader(body)}
		at, err := readAnswer(status, r)
		if r.n > maxAnswerBytes {
			t.Fatalf("read %d bytes, at most %d", r.n, maxAnswerBytes)
		}
		if err == nil {
			if status != 200 || at.UnixNano() <= 0 {
				t.Fatalf("status %d body %q accepted as %v", status, body, at)
			}
			return
		}
		msg := err.Error()
		if len(msg) > maxErrorLen+200 || !utf8.ValidString(msg) ||
			strings.ContainsFunc(msg, func(r rune) bool { return !unicode.IsPrint(r) }) {
			t.Fatalf("error text %q is long or not printable", msg)
		}
	})
}

// FuzzAuthorized: a request is let in exactly when its Authorization
// header is "Bearer " and the token.
func FuzzAuthorized(f *testing.F) {
	f.Add("Bearer "+testToken, testToken)
	f.Add("Bearer "+testToken+" ", testToken)
	f.Add("bearer "+testToken, testToken)
	f.Add(testToken, testToken)
	f.Add("Bearer ", "")
	f.Fuzz(func(t *testing.T, header, token string) {
		d := tokenDigest(token)
		if got, want := authorized(header, &d), header == "Bearer "+token; got != want {
			t.Fatalf("header %q, token %q: authorized %v, want %v", header, token, got, want)
		}
	})
}

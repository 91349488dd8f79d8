package rendezvous

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The wire protocol: a shard asks
//
//	GET /meet?point=P&shard=I&count=N
//	Authorization: Bearer TOKEN
//
// and shard 0 answers, once every shard has arrived or the meeting failed,
// with {"start_unix_ns": T} or {"error": "why"}. Both sides parse what
// the other sends as untrusted input: a stranger may reach the port, and a
// shard 0 that is not llmbench may answer.

// Limits on what either side reads, so a hostile peer costs little.
const (
	// maxPointLen bounds a point's name: a point key is a scenario's
	// experiment and parameters, far shorter.
	maxPointLen = 1024
	// maxAnswerBytes bounds the answer read from shard 0.
	maxAnswerBytes = 64 << 10
	// maxErrorLen bounds the error text of an answer that reaches the
	// console.
	maxErrorLen = 512
	// MinTokenLen is the shortest shared token accepted: 16 random
	// characters are beyond guessing over a network.
	MinTokenLen = 16
)

// arrival is one shard's request to meet at a point.
type arrival struct {
	point        string
	shard, count int
}

// parseArrival reads a request to meet, refusing anything but the one
// form shards send.
func parseArrival(method, path, rawQuery string) (arrival, error) {
	const want = "barrier: want GET /meet?point=P&shard=I&count=N"
	if method != http.MethodGet || path != "/meet" {
		return arrival{}, errors.New(want)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || len(q["point"]) != 1 || len(q["shard"]) != 1 || len(q["count"]) != 1 {
		return arrival{}, errors.New(want)
	}
	a := arrival{point: q.Get("point")}
	a.shard, err = strconv.Atoi(q.Get("shard"))
	if err != nil {
		return arrival{}, errors.New(want)
	}
	if a.count, err = strconv.Atoi(q.Get("count")); err != nil {
		return arrival{}, errors.New(want)
	}
	if err := checkPoint(a.point); err != nil {
		return arrival{}, err
	}
	if a.count < 1 || a.shard < 0 || a.shard >= a.count {
		return arrival{}, fmt.Errorf("barrier: shard %d of %d: want 0 <= I < N", a.shard, a.count)
	}
	return a, nil
}

// checkPoint refuses a point name that is empty, too long or not
// printable text: it is echoed in errors that reach a console.
func checkPoint(point string) error {
	if point == "" || len(point) > maxPointLen || !utf8.ValidString(point) ||
		strings.ContainsFunc(point, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return fmt.Errorf("barrier: a point name of 1 to %d printable characters", maxPointLen)
	}
	return nil
}

// meetURL is the request a shard sends for a.
func meetURL(addr string, a arrival) string {
	q := url.Values{"point": {a.point}, "shard": {strconv.Itoa(a.shard)}, "count": {strconv.Itoa(a.count)}}
	return "http://" + addr + "/meet?" + q.Encode()
}

// answer is shard 0's reply: the start instant, or why there is none.
type answer struct {
	StartNs int64  `json:"start_unix_ns,omitempty"`
	Error   string `json:"error,omitempty"`
}

// readAnswer reads shard 0's reply to a meeting: the start, or an error
// holding shard 0's reason (made printable and short, since it reaches the
// console). A reply that is neither is an error too.
func readAnswer(status int, body io.Reader) (time.Time, error) {
	var a answer
	dec := json.NewDecoder(io.LimitReader(body, maxAnswerBytes))
	if err := dec.Decode(&a); err != nil {
		return time.Time{}, fmt.Errorf("shard 0 answered %d, not a start: %s", status, printable(err.Error()))
	}
	switch {
	case a.Error != "":
		return time.Time{}, errors.New(printable(a.Error))
	case status != http.StatusOK:
		return time.Time{}, fmt.Errorf("shard 0 answered %d without a start", status)
	case a.StartNs <= 0:
		return time.Time{}, fmt.Errorf("shard 0 answered no start (start_unix_ns %d)", a.StartNs)
	}
	return time.Unix(0, a.StartNs), nil
}

// printable is s cut to maxErrorLen bytes with every control or invalid
// character replaced, so a peer's text cannot drive the terminal.
func printable(s string) string {
	if len(s) > maxErrorLen {
		s = s[:maxErrorLen] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

// checkStart bounds the start a shard is told to wait for: no further
// than timeout past now (or past --start-at, which the user chose, for a
// run scheduled ahead), nor more than timeout in the past (an open loop
// would send every arrival it "missed" at once). A shard 0 gone wrong, or
// one that is not llmbench, cannot hold the others for longer than the
// meeting itself may last.
func checkStart(at, now, startAt time.Time, timeout time.Duration) error {
	latest := now
	if startAt.After(latest) {
		latest = startAt
	}
	if at.After(latest.Add(timeout)) || at.Before(now.Add(-timeout)) {
		return fmt.Errorf("told to start at %s, more than the barrier timeout (%s, --barrier-timeout) from now (%s): refusing to wait for it",
			at.UTC().Format(time.RFC3339Nano), timeout, now.UTC().Format(time.RFC3339))
	}
	return nil
}

// tokenDigest is what tokens are compared by: equal-length digests, so
// the constant-time comparison does not reveal the token's length either.
func tokenDigest(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

// authorized reports whether the request carries the shared token, in
// constant time. want is the digest of the token; no token configured
// (only possible on loopback) lets every request in.
func authorized(header string, want *[sha256.Size]byte) bool {
	if want == nil {
		return true
	}
	got, ok := strings.CutPrefix(header, "Bearer ")
	d := tokenDigest(got)
	return subtle.ConstantTimeCompare(d[:], want[:]) == 1 && ok
}

// CheckToken refuses a token too short to resist guessing or one that
// cannot travel in an HTTP header. The token is never quoted back.
func CheckToken(token string) error {
	if len(token) < MinTokenLen {
		return fmt.Errorf("the barrier token has %d characters, want at least %d (e.g. openssl rand -hex 32)", len(token), MinTokenLen)
	}
	for _, r := range token {
		if r <= ' ' || r > '~' {
			return errors.New("the barrier token holds a space, control or non-ASCII character; want printable ASCII (e.g. openssl rand -hex 32)")
		}
	}
	return nil
}

// Loopback reports whether addr's host is a loopback address (127.0.0.0/8,
// ::1) or "localhost": a barrier there is reachable from this machine
// only. An empty host (":PORT", every interface) is not.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// needToken refuses a barrier without a token anywhere but on loopback:
// whoever reaches the port could otherwise start, stall or break a load
// test, and a load test is itself traffic that can hurt a server.
func needToken(addr, token string) error {
	if token == "" {
		if Loopback(addr) {
			return nil
		}
		return fmt.Errorf("barrier %s is not a loopback address: anyone who reaches it could start or stop the run; give the shards a shared token (--barrier-token or LLMBENCH_BARRIER_TOKEN)", addr)
	}
	return CheckToken(token)
}

package rendezvous

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// hangBound is an upper bound that turns a hang into a failure; nothing
// below waits for it when the barrier behaves.
const hangBound = 20 * time.Second

const testToken = "0123456789abcdef0123456789abcdef"

// rawArrival is a peer speaking the barrier's protocol by hand: one GET on
// its own TCP connection, which it keeps open until close, so tests can
// drop it at will. token "" sends none.
type rawArrival struct {
	conn net.Conn
	resp chan string // the status line and body, once answered
}

func arriveRaw(t *testing.T, addr, query, token string) *rawArrival {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, hangBound)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(hangBound))
	req := "GET /meet?" + query + " HTTP/1.1\r\nHost: barrier\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
		t.Fatal(err)
	}
	r := &rawArrival{conn: conn, resp: make(chan string, 1)}
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			r.resp <- "no answer: " + err.Error()
			return
		}
		defer resp.Body.Close()
		var body strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&body)
		r.resp <- resp.Status + " " + body.String()
	}()
	t.Cleanup(func() { conn.Close() })
	return r
}

// answer waits for the barrier's reply to a raw arrival.
func (r *rawArrival) answer(t *testing.T) string {
	t.Helper()
	select {
	case s := <-r.resp:
		return s
	case <-time.After(hangBound):
		t.Fatal("the barrier never answered")
		return ""
	}
}

// meetSoon is Meet with the hang bound.
func meetSoon(b *Barrier, point string) (time.Time, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	return b.Meet(ctx, point)
}

// waitFor polls cond until it holds (the hang bound fails the test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// arrived reports whether shard has registered at shard 0's current
// meeting.
func arrived(b0 *Barrier, shard int) bool {
	h := b0.host
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur != nil && h.cur.arrived[shard] != ""
}

// failed reports whether shard 0's current meeting failed.
func failed(b0 *Barrier) bool {
	h := b0.host
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur != nil && h.cur.err != nil
}

func serve(t *testing.T, addr string, n int, opts Options) *Barrier {
	t.Helper()
	b0, err := Serve(addr, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b0.Close() })
	return b0
}

// --barrier 127.0.0.2:PORT listens there, not on every interface: the
// same port on 127.0.0.1 is closed.
func TestListensOnlyOnTheAddressGiven(t *testing.T) {
	port := strings.TrimPrefix(freeAddr(t), "127.0.0.1:")
	serve(t, "127.0.0.2:"+port, 2, Options{Timeout: time.Minute})
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, hangBound); err == nil {
		conn.Close()
		t.Fatalf("the barrier given 127.0.0.2:%s also answers on 127.0.0.1:%s", port, port)
	}
	if conn, err := net.DialTimeout("tcp", "127.0.0.2:"+port, hangBound); err != nil {
		t.Fatalf("the barrier does not answer on the address given: %v", err)
	} else {
		conn.Close()
	}
}

// Anywhere but loopback a barrier needs a token of at least 16 printable
// characters, on shard 0 and on the others; a zero or negative timeout is
// refused, not replaced.
func TestBarrierOptionsAreChecked(t *testing.T) {
	ok := Options{Timeout: time.Minute}
	withToken := Options{Timeout: time.Minute, Token: testToken}
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"every interface without a token", func() error { _, err := Serve(":0", 2, ok); return err }, "LLMBENCH_BARRIER_TOKEN"},
		{"a pod address without a token", func() error { _, err := Dial("10.1.2.3:7480", 1, 2, ok); return err }, "--barrier-token"},
		{"a name without a token", func() error { _, err := Dial("llmbench-shard-0.llmbench-shard:7480", 1, 2, ok); return err }, "not a loopback address"},
		{"a short token", func() error {
			_, err := Dial("10.1.2.3:7480", 1, 2, Options{Timeout: time.Minute, Token: "short"})
			return err
		}, "at least 16"},
		{"a token with a newline", func() error {
			_, err := Dial("10.1.2.3:7480", 1, 2, Options{Timeout: time.Minute, Token: testToken + "\n"})
			return err
		}, "printable ASCII"},
		{"a zero timeout", func() error { _, err := Dial("127.0.0.1:7480", 1, 2, Options{}); return err }, "positive"},
		{"a negative timeout", func() error { _, err := Serve("127.0.0.1:0", 2, Options{Timeout: -time.Second}); return err }, "positive"},
	}
	for _, c := range cases {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := Dial("10.1.2.3:7480", 1, 2, withToken); err != nil {
		t.Errorf("a pod address with a token: %v", err)
	}
	if _, err := Dial("127.0.0.1:7480", 1, 2, ok); err != nil {
		t.Errorf("loopback without a token: %v", err)
	}
	b, err := Serve("127.0.0.1:0", 2, withToken)
	if err != nil {
		t.Fatalf("loopback with a token: %v", err)
	}
	b.Close()
}

// A peer without the token, or with another, is refused and changes
// nothing: the shards that have it still meet.
func TestAPeerWithoutTheTokenIsRefused(t *testing.T) {
	opts := Options{Timeout: time.Minute, Token: testToken}
	b0 := serve(t, "127.0.0.1:0", 2, opts)
	for _, token := range []string{"", "0123456789abcdef0123456789abcdeX", testToken[:16]} {
		r := arriveRaw(t, b0.Addr(), "point=p&shard=1&count=2", token)
		if got := r.answer(t); !strings.HasPrefix(got, "401 ") || !strings.Contains(got, "token") {
			t.Errorf("token %q: answered %q, want 401 naming the token", token, got)
		}
	}
	b1, err := Dial(b0.Addr(), 1, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := Dial(b0.Addr(), 1, 2, Options{Timeout: time.Minute, Token: strings.Repeat("x", 32)})
	if _, err := meetSoon(wrong, "p"); err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Errorf("a shard with another token: %v, want it told the token is wrong", err)
	}
	done := make(chan error, 1)
	go func() { _, err := meetSoon(b1, "p"); done <- err }()
	if _, err := meetSoon(b0, "p"); err != nil {
		t.Errorf("shard 0: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("shard 1: %v", err)
	}
}

// A second claim of a shard that waits fails the meeting on every shard,
// naming the shard: two processes think they are shard 1.
func TestAShardClaimedTwiceFailsTheMeeting(t *testing.T) {
	b0 := serve(t, "127.0.0.1:0", 3, Options{Timeout: time.Minute})
	first := arriveRaw(t, b0.Addr(), "point=p&shard=1&count=3", "")
	waitFor(t, "shard 1 registered", func() bool { return arrived(b0, 1) })
	second := arriveRaw(t, b0.Addr(), "point=p&shard=1&count=3", "")
	for i, r := range []*rawArrival{second, first} {
		if got := r.answer(t); !strings.HasPrefix(got, "409 ") || !strings.Contains(got, "shard 1 claimed twice") {
			t.Errorf("claim %d: answered %q, want 409: shard 1 claimed twice", 2-i, got)
		}
	}
	if _, err := meetSoon(b0, "p"); err == nil || !strings.Contains(err.Error(), "claimed twice") {
		t.Errorf("shard 0: %v, want the meeting failed", err)
	}
}

// A shard of another shard count, or at another point than the others,
// fails the meeting at once rather than let the others wait it out.
func TestAShardOfAnotherPlanFailsTheMeeting(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"point=p&shard=1&count=3", "arrived at a run of 2 shards"},
		{"point=q&shard=1&count=2", "the shards run different plans"},
	} {
		b0 := serve(t, "127.0.0.1:0", 2, Options{Timeout: time.Minute})
		done := make(chan error, 1)
		go func() { _, err := meetSoon(b0, "p"); done <- err }()
		waitFor(t, "shard 0 registered", func() bool { return arrived(b0, 0) })
		if got := arriveRaw(t, b0.Addr(), c.query, "").answer(t); !strings.Contains(got, c.want) {
			t.Errorf("%s: answered %q, want %q", c.query, got, c.want)
		}
		if err := <-done; err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: shard 0: %v, want %q", c.query, err, c.want)
		}
	}
}

// A shard that arrived and whose connection then dropped (the process
// died) fails the meeting: the others are told, and none starts a load
// missing its share — also a shard that comes after the drop.
func TestAShardThatArrivedAndDiedFailsTheMeeting(t *testing.T) {
	b0 := serve(t, "127.0.0.1:0", 3, Options{Timeout: time.Minute})
	dead := arriveRaw(t, b0.Addr(), "point=p&shard=1&count=3", "")
	waitFor(t, "shard 1 registered", func() bool { return arrived(b0, 1) })
	dead.conn.Close()
	waitFor(t, "the drop noticed", func() bool { return failed(b0) })
	b2, err := Dial(b0.Addr(), 2, 3, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []*Barrier{b0, b2} {
		if _, err := meetSoon(b, "p"); err == nil || !strings.Contains(err.Error(), "shard 1") || !strings.Contains(err.Error(), "connection dropped") {
			t.Errorf("shard %d: %v, want shard 1's dropped connection named", 2*i, err)
		}
	}
}

// Shard 0 dying while a shard waits fails that shard at once: it is not
// retried as if shard 0 had not started yet.
func TestShardZeroDyingFailsTheOthersAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = http.ReadRequest(bufio.NewReader(conn)) // the arrival, then death
			conn.Close()
		}
	}()
	b1, err := Dial(ln.Addr().String(), 1, 2, Options{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meetSoon(b1, "p"); err == nil || !strings.Contains(err.Error(), "connection dropped") {
		t.Errorf("%v, want the dropped connection named", err)
	}
}

// A shard 0 that announces a start far away (a fake one answering "start
// in 2200", or a long-gone instant) is refused at once: no start further
// than --barrier-timeout from now is waited for.
func TestAStartBeyondTheTimeoutIsRefused(t *testing.T) {
	for _, at := range []time.Time{time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), epoch.Add(-2 * time.Minute)} {
		fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"start_unix_ns": %d}`, at.UnixNano())
		}))
		b1, err := Dial(strings.TrimPrefix(fake.URL, "http://"), 1, 2, Options{Timeout: time.Minute, Now: fixedClock(epoch)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := meetSoon(b1, "p")
		if err == nil || !strings.Contains(err.Error(), "--barrier-timeout") {
			t.Errorf("told to start at %v: %v, %v; want it refused naming --barrier-timeout", at, got, err)
		}
		fake.Close()
	}
}

// A point that already started is not met again: a peer arriving there
// is refused at once, and nothing of a finished point is kept beyond the
// next one (one meeting at a time, whatever the peers send).
func TestFinishedPointsAreForgotten(t *testing.T) {
	bs := barriers(t, 2, Options{Timeout: time.Minute})
	for i := range 50 {
		if _, errs := meetAll(bs, fmt.Sprintf("point%d", i), 0); errs[0] != nil || errs[1] != nil {
			t.Fatalf("point%d: %v", i, errs)
		}
	}
	if _, err := meetSoon(bs[1], "point49"); err == nil || !strings.Contains(err.Error(), "already started") {
		t.Errorf("arriving again at a finished point: %v, want it refused", err)
	}
	if h := bs[0].host; h.cur == nil || h.cur.point != "point49" || len(h.cur.arrived) != 2 {
		t.Errorf("shard 0 holds %+v, want only the last point's meeting", h.cur)
	}
}

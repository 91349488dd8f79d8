package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Connections go out from the given local addresses in turn: a server
// that closes every connection sees each request come from the next one.
func TestSourceAddressesRoundRobin(t *testing.T) {
	var mu sync.Mutex
	var from []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		from = append(from, host)
		mu.Unlock()
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	addrs, err := ParseSourceAddresses([]string{"127.0.0.2-127.0.0.4"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Config{URL: srv.URL, API: Chat, Timeout: 10 * time.Second, SourceAddrs: addrs}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 6 {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err != nil {
			t.Fatalf("request failed: %v", rec.Err)
		}
	}
	want := "127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.2 127.0.0.3 127.0.0.4"
	if got := strings.Join(from, " "); got != want {
		t.Errorf("server saw connections from %s, want %s", got, want)
	}
}

func TestParseSourceAddresses(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  string // the addresses joined by " ", or the error's start
	}{
		{[]string{"127.0.0.2-127.0.0.5"}, "127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5"},
		{[]string{"127.0.0.9", "127.0.0.2-127.0.0.3", "127.0.0.2"}, "127.0.0.9 127.0.0.2 127.0.0.3"},
		{[]string{"127.0.0.254-127.0.1.1"}, "127.0.0.254 127.0.0.255 127.0.1.0 127.0.1.1"},
		{[]string{"127.0.0.1"}, "127.0.0.1"},
		{[]string{"127.0.0.9-127.0.0.2"}, `"127.0.0.9-127.0.0.2": the range ends before it starts`},
		{[]string{"192.0.2.7"}, "192.0.2.7 is not an address of this machine"},
		{[]string{"localhost"}, `"localhost": want an IP address`},
		{[]string{"127.0.0.2-x"}, `"127.0.0.2-x": the range's end is not an IP address`},
		{[]string{"127.0.0.2-::1"}, `"127.0.0.2-::1": the range mixes IPv4 and IPv6`},
		{[]string{"127.0.0.0-127.1.0.0"}, `"127.0.0.0-127.1.0.0": more than 4096 addresses`},
		{nil, "got an empty list"},
	} {
		addrs, err := ParseSourceAddresses(c.specs)
		got := joinAddrs(addrs)
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: got %s, want %s", c.specs, got, c.want)
		}
	}
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, " ")
}

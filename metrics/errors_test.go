package metrics

import (
	"fmt"
	"testing"
)

func TestNormalizeMessage(t *testing.T) {
	cases := []struct{ in, want string }{
		{"read tcp 127.0.0.1:54321->127.0.0.1:8000: read: connection reset by peer",
			"read tcp 127.0.0.1:<n>->127.0.0.1:<n>: read: connection reset by peer"},
		{"dial tcp [::1]:443: connect: connection refused", "dial tcp [::1]:443: connect: connection refused"},
		{"request 3f2b8c1e-9a7d-4e6f-b5c4-0123456789AB failed", "request <uuid> failed"},
		{"id chatcmpl-9f86d081884c7d65: overloaded", "id chatcmpl-<hex>: overloaded"},
		{"trace deadbeef00 and DEADBEEF01", "trace <hex> and <hex>"},
		{"requested 33000 tokens, context is 32768", "requested <n> tokens, context is <n>"},
		{"at 1732900000123 ns", "at <n> ns"},
		{"req_12345 and id12345x", "req_<n> and id<n>x"},
		// Kept: short numbers, words, hex-looking words without a digit,
		// hex runs under 8, text beyond ASCII.
		{"HTTP 500: engine died after 12 steps", "HTTP 500: engine died after 12 steps"},
		{"accessed defaced abcdef1 abcdef12", "accessed defaced abcdef1 <hex>"},
		{"überlastet: 5 Versuche ✓", "überlastet: 5 Versuche ✓"},
		{"not-a-uuid 3f2b8c1e-9a7d-4e6f-b5c4-0123456789ABC", "not-a-uuid <hex>-9a7d-4e6f-b5c4-<hex>"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := NormalizeMessage(tc.in); got != tc.want {
			t.Errorf("NormalizeMessage(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// 400 resets from 400 ports are one error with a real message, whatever
// order they are added in; a different cause stays its own group.
func TestErrorListGroupsNormalizedMessages(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		a := NewAccumulator(Options{})
		for i := range 400 {
			port := 40000 + i
			if reverse {
				port = 40399 - i
			}
			msg := fmt.Sprintf("read tcp 127.0.0.1:%d->127.0.0.1:8000: read: connection reset by peer", port)
			a.Add(&Record{Sent: 1, Done: 2, Err: &Failure{Class: ErrReset, Message: msg}})
		}
		a.Add(&Record{Sent: 1, Done: 2, Err: &Failure{Class: ErrHTTP, Status: 503, Message: "overloaded"}})
		got := a.Summary().Errors
		want := []ErrorCount{
			{Class: ErrReset, Message: "read tcp 127.0.0.1:40000->127.0.0.1:8000: read: connection reset by peer", Count: 400},
			{Class: ErrHTTP, Status: 503, Message: "overloaded", Count: 1},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("reverse=%v: errors\n got %+v\nwant %+v", reverse, got, want)
		}
	}
}

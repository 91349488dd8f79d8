package slowdown

import (
	"bytes"
	"strings"
	"testing"
)

// frame cuts body into events, fed in chunks of size n (0: all at once),
// and returns the events and the unfinished rest.
func frame(body string, n int) (events []string, rest string) {
	var f eventFramer
	p := []byte(body)
	if n <= 0 {
		n = len(p) + 1
	}
	for len(p) > 0 {
		k := min(n, len(p))
		for _, ev := range f.push(p[:k]) {
			events = append(events, string(ev))
		}
		p = p[k:]
	}
	return events, string(f.rest())
}

// A CRLF cut between two reads after the blank line's CR ends the event
// at the CR; its LF leads the next event (and the bytes are unchanged).
func TestEventFramerCRLFCutBetweenReads(t *testing.T) {
	got, rest := frame("data: a\r\n\r\ndata: b\r\n\r\n", 10)
	want := []string{"data: a\r\n\r", "\ndata: b\r\n\r\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") || rest != "" {
		t.Errorf("events %q rest %q, want %q", got, rest, want)
	}
}

func TestEventFramer(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
		rest       string
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}, ""},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"data: a\r\n\r\n", "data: b\r\n\r\n"}, ""},
		{"cr", "data: a\r\rdata: b\r\r", []string{"data: a\r\r", "data: b\r\r"}, ""},
		{"multi-line event", "event: x\ndata: 1\ndata: 2\n\n", []string{"event: x\ndata: 1\ndata: 2\n\n"}, ""},
		{"comment is an event", ": ping\n\ndata: a\n\n", []string{": ping\n\n", "data: a\n\n"}, ""},
		{"openai tail", "data: {\"usage\":{}}\n\ndata: [DONE]\n\n", []string{"data: {\"usage\":{}}\n\n", "data: [DONE]\n\n"}, ""},
		{"no final blank line", "data: a\n\ndata: b\n", []string{"data: a\n\n"}, "data: b\n"},
		{"mixed line ends", "data: a\r\n\ndata: b\n\r\n", []string{"data: a\r\n\n", "data: b\n\r\n"}, ""},
	} {
		for _, n := range []int{0, 1, 2, 3, 7} {
			if n > 0 && strings.Contains(tc.body, "\r") {
				continue // a CRLF cut between reads moves its LF (FuzzEventFramer)
			}
			got, rest := frame(tc.body, n)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || rest != tc.rest {
				t.Errorf("%s in chunks of %d: events %q rest %q, want %q rest %q", tc.name, n, got, rest, tc.want, tc.rest)
			}
		}
	}
}

// Whatever the body and however it is cut into reads, the events and the
// rest joined are the body, byte for byte; without CRs the events are the
// same for every cut.
func FuzzEventFramer(f *testing.F) {
	f.Add("data: a\n\ndata: [DONE]\n\n", 3)
	f.Add("data: a\r\n\r\n: c\r\r\n\n", 1)
	f.Fuzz(func(t *testing.T, body string, n int) {
		n = 1 + (n%16+16)%16
		events, rest := frame(body, n)
		if joined := strings.Join(events, "") + rest; joined != body {
			t.Fatalf("joined %q, want %q", joined, body)
		}
		for _, ev := range events {
			if ev == "" {
				t.Fatal("empty event")
			}
		}
		if !strings.Contains(body, "\r") {
			whole, wholeRest := frame(body, 0)
			if strings.Join(whole, "|") != strings.Join(events, "|") || wholeRest != rest {
				t.Fatalf("chunks of %d give %q, whole gives %q", n, events, whole)
			}
		}
	})
}

// push may be handed a buffer the caller reuses: the events it returned
// must not change when the buffer does.
func TestEventFramerCopies(t *testing.T) {
	var f eventFramer
	buf := []byte("data: a\n\n")
	events := f.push(buf)
	copy(buf, "XXXXXXXXX")
	if len(events) != 1 || !bytes.Equal(events[0], []byte("data: a\n\n")) {
		t.Errorf("events %q after the buffer changed", events)
	}
}

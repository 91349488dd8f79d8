package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// pieces is a reader that returns its strings one Read at a time, to
// reproduce how the network splits and merges events.
type pieces struct{ parts []string }

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.parts[0])
	p.parts[0] = p.parts[0][n:]
	if p.parts[0] == "" {
		p.parts = p.parts[1:]
	}
	return n, nil
}

type parsed struct{ typ, data string }

func parseAll(t *testing.T, parts ...string) ([]parsed, error) {
	t.Helper()
	p := NewSSEParser(&pieces{parts: parts}, NewClock())
	var out []parsed
	for {
		ev, err := p.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, parsed{string(ev.Type), string(ev.Data)})
	}
}

func TestSSEParser(t *testing.T) {
	cases := []struct {
		name  string
		parts []string
		want  []parsed
	}{
		{"one event", []string{"data: a\n\n"}, []parsed{{"", "a"}}},
		{"split across reads", []string{"da", "ta: {\"x\"", ":1}\n", "\n"}, []parsed{{"", `{"x":1}`}}},
		{"several in one read", []string{"data: a\n\ndata: b\n\ndata: [DONE]\n\n"},
			[]parsed{{"", "a"}, {"", "b"}, {"", "[DONE]"}}},
		{"comments ignored", []string{": keep-alive\n\n: ping\ndata: a\n\n"}, []parsed{{"", "a"}}},
		{"event type", []string{"event: error\ndata: {\"error\":\"boom\"}\n\n"}, []parsed{{"error", `{"error":"boom"}`}}},
		{"id and retry ignored", []string{"id: 7\nretry: 1000\ndata: a\n\n"}, []parsed{{"", "a"}}},
		{"CRLF", []string{"data: a\r\n\r\ndata: b\r\n\r\n"}, []parsed{{"", "a"}, {"", "b"}}},
		{"lone CR", []string{"data: a\r\rdata: b\r\r"}, []parsed{{"", "a"}, {"", "b"}}},
		{"multi-line data", []string{"data: a\ndata: b\n\n"}, []parsed{{"", "a\nb"}}},
		{"no space after colon", []string{"data:a\n\n"}, []parsed{{"", "a"}}},
		{"missing final blank line", []string{"data: a\n\ndata: b"}, []parsed{{"", "a"}, {"", "b"}}},
		{"missing DONE", []string{"data: a\n\n"}, []parsed{{"", "a"}}},
		{"blank lines only", []string{"\n\n\n"}, nil},
		{"long line", []string{"data: " + strings.Repeat("x", 40000) + "\n\n"}, []parsed{{"", strings.Repeat("x", 40000)}}},
		// A long data line is kept as a view of the line buffer: a long
		// line after it, before the event ends, must not overwrite it.
		{"long data then long comment", []string{"data: " + strings.Repeat("x", 9000) + "\n: " + strings.Repeat("c", 9000) + "\n\n"},
			[]parsed{{"", strings.Repeat("x", 9000)}}},
		{"long data lines joined", []string{"data: " + strings.Repeat("x", 9000) + "\ndata: " + strings.Repeat("y", 9000) + "\n\n"},
			[]parsed{{"", strings.Repeat("x", 9000) + "\n" + strings.Repeat("y", 9000)}}},
		{"long then short event", []string{"data: " + strings.Repeat("x", 9000) + "\n\ndata: b\n\n"},
			[]parsed{{"", strings.Repeat("x", 9000)}, {"", "b"}}},
		{"long line with lone CR", []string{"data: " + strings.Repeat("x", 9000) + "\r\rdata: b\r\r"},
			[]parsed{{"", strings.Repeat("x", 9000)}, {"", "b"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAll(t, tc.parts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events %q, want %d %q", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A line over the limit fails with an oversize error naming the limit,
// however it arrives; one at the limit is read.
func TestSSEParserLineLimit(t *testing.T) {
	cases := []struct {
		name string
		line int
		fail bool
	}{{"under", 9000, false}, {"at", 10000, false}, {"over", 10001, true}, {"endless", 1 << 20, true}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Repeat("x", tc.line)
			if tc.name != "endless" {
				body += "\n\n"
			}
			p := NewSSEParser(strings.NewReader(body), NewClock())
			p.SetMaxLineSize(10000)
			_, err := p.Next()
			if got := isOversize(err); got != tc.fail {
				t.Fatalf("err = %v, want oversize %v", err, tc.fail)
			}
			if tc.fail && !strings.Contains(err.Error(), "--max-sse-line-size") {
				t.Errorf("message %q does not name the limit", err)
			}
		})
	}
}

// errAfter fails with err once its data is consumed, like a reset connection.
type errAfter struct {
	r   io.Reader
	err error
}

func (e *errAfter) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if errors.Is(err, io.EOF) {
		return n, e.err
	}
	return n, err
}

func TestSSEParserPassesTransportErrors(t *testing.T) {
	p := NewSSEParser(&errAfter{strings.NewReader("data: a\n\ndata: b"), io.ErrUnexpectedEOF}, NewClock())
	if ev, err := p.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("first event = %q, %v", ev.Data, err)
	}
	if _, err := p.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
}

// The stamp of an event is the arrival of the read that completed it.
func TestSSEParserStampsArrival(t *testing.T) {
	clock := NewClock()
	r := &stampedPieces{parts: []string{"data: a\n", "\ndata: b\n\n"}, clock: clock}
	p := NewSSEParser(r, clock)
	for i := range 2 {
		ev, err := p.Next()
		after := clock.Now()
		if err != nil {
			t.Fatal(err)
		}
		// Event 0 began in read 0 but was completed by read 1.
		if ev.At < r.readAt[1] || ev.At > after {
			t.Errorf("event %d stamped %d, want within the second read [%d, %d]", i, ev.At, r.readAt[1], after)
		}
	}
}

type stampedPieces struct {
	parts  []string
	clock  *Clock
	readAt []int64
}

func (s *stampedPieces) Read(b []byte) (int, error) {
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, s.parts[0])
	s.parts = s.parts[1:]
	s.readAt = append(s.readAt, s.clock.Now())
	return n, nil
}

func FuzzSSEParser(f *testing.F) {
	f.Add("data: a\n\ndata: [DONE]\n\n", 3)
	f.Add("event: error\r\ndata: x\r\n\r\n: c\n", 1)
	f.Add("data:\rdata: b\r\r", 2)
	f.Fuzz(func(t *testing.T, stream string, cut int) {
		// Splitting the same bytes differently must not change the events.
		whole, err1 := parseAll(t, stream)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(stream) + 1
		split, err2 := parseAll(t, stream[:cut], stream[cut:])
		if (err1 == nil) != (err2 == nil) || len(whole) != len(split) {
			t.Fatalf("whole %q (%v) vs split at %d %q (%v)", whole, err1, cut, split, err2)
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("event %d: %q vs %q", i, whole[i], split[i])
			}
		}
	})
}

package slowdown

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// scriptedClock is the upstream's arrival times, set by scriptedBody as
// each read returns, and a record of the release times waited for, which
// it never waits: the schedule a body follows is checked exactly.
type scriptedClock struct {
	current time.Time
	mu      sync.Mutex
	waited  []time.Duration // since base
	base    time.Time
}

func (c *scriptedClock) now() time.Time { return c.current }

func (c *scriptedClock) waitUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waited = append(c.waited, t.Sub(c.base))
	return ctx.Err()
}

// scriptedBody returns one chunk a read, each at its arrival time, then
// end (io.EOF or an error) at the last chunk's time.
type scriptedBody struct {
	clock  *scriptedClock
	chunks []string
	at     []time.Duration
	end    error
}

func (b *scriptedBody) Read(p []byte) (int, error) {
	if len(b.chunks) == 0 {
		return 0, b.end
	}
	n := copy(p, b.chunks[0])
	b.clock.current = b.clock.base.Add(b.at[0])
	b.chunks, b.at = b.chunks[1:], b.at[1:]
	return n, nil
}

func (b *scriptedBody) Close() error { return nil }

// A held body waits for exactly the planned release of each event: the
// events are cut from the reads as they arrive (an event arrives with its
// blank line; two in one read share its arrival), and the bytes come out
// unchanged.
func TestHeldBodyFollowsTheSchedule(t *testing.T) {
	c := &scriptedClock{base: time.Unix(1000, 0)}
	body := &scriptedBody{clock: c,
		chunks: []string{"data: a\n\n", "data: b\n\n", "data: c\n", "\ndata: [DONE]\n\n"},
		at:     []time.Duration{100 * ms, 110 * ms, 120 * ms, 130 * ms},
		end:    io.EOF}
	h := hold(context.Background(), c, Shares{ITL: 0.25, TTFT: 0.5}, c.base, body, true)
	got, err := io.ReadAll(h)
	if err != nil {
		t.Fatal(err)
	}
	_ = h.Close()
	if want := "data: a\n\ndata: b\n\ndata: c\n\ndata: [DONE]\n\n"; string(got) != want {
		t.Errorf("bytes %q, want %q", got, want)
	}
	// TTFT 100 + 50; gaps 10 and 20 widened by 25%: c is complete only
	// with the read at 130 ms, which also brings [DONE].
	want := []time.Duration{150 * ms, 162500 * time.Microsecond, 187500 * time.Microsecond, 187500 * time.Microsecond}
	if len(c.waited) != len(want) {
		t.Fatalf("waited for %v, want %v", c.waited, want)
	}
	for i := range want {
		if c.waited[i] != want[i] {
			t.Errorf("event %d released at %v, want %v", i, c.waited[i], want[i])
		}
	}
}

// A body that is not an event stream is one event, released by the
// time its last byte arrived; an upstream error after it reaches the
// reader once the bytes are out.
func TestHeldBodyWholeResponse(t *testing.T) {
	c := &scriptedClock{base: time.Unix(1000, 0)}
	cut := errors.New("connection reset")
	body := &scriptedBody{clock: c, chunks: []string{`{"choices":`, `[]}`}, at: []time.Duration{300 * ms, 400 * ms}, end: cut}
	h := hold(context.Background(), c, Shares{Throughput: 0.25}, c.base, body, false)
	got, err := io.ReadAll(h)
	_ = h.Close()
	if string(got) != `{"choices":[]}` || !errors.Is(err, cut) {
		t.Errorf("got %q, %v; want the whole body then %v", got, err, cut)
	}
	if len(c.waited) != 1 || c.waited[0] != 500*ms {
		t.Errorf("waited for %v, want [500ms] (400 ms × 1.25)", c.waited)
	}
}

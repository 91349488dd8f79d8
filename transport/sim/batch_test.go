package sim

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after a generous
// deadline; it orders steps without asserting on wall time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestBatchGrantsSlotsInArrivalOrder(t *testing.T) {
	b := newBatch(1)
	if err := b.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 3)
	for i := 1; i <= 3; i++ {
		go func() {
			if b.acquire(context.Background()) == nil {
				got <- i
			}
		}()
		waitFor(t, "waiter to queue", func() bool { return b.state().waiting == i })
	}
	for want := 1; want <= 3; want++ {
		b.release()
		if g := <-got; g != want {
			t.Fatalf("slot went to waiter %d, want %d", g, want)
		}
	}
	b.release()
	if st := b.state(); st.running != 0 || st.waiting != 0 {
		t.Errorf("after all releases: %+v", st)
	}
}

func TestBatchCanceledWaiterLeavesQueue(t *testing.T) {
	b := newBatch(1)
	_ = b.acquire(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- b.acquire(ctx) }()
	waitFor(t, "waiter to queue", func() bool { return b.state().waiting == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("canceled acquire succeeded")
	}
	b.release()
	if st := b.state(); st.running != 0 || st.waiting != 0 {
		t.Errorf("slot leaked: %+v", st)
	}
}

func TestITLGrowsWithDecodingSequences(t *testing.T) {
	s := &Server{cfg: Config{ITL: 8 * time.Millisecond, ITLPerSeq: time.Millisecond}, batch: newBatch(64)}
	for _, tc := range []struct {
		decoding int64
		want     time.Duration
	}{{1, 8 * time.Millisecond}, {2, 9 * time.Millisecond}, {33, 40 * time.Millisecond}} {
		s.batch.decoding.Store(tc.decoding)
		if got := s.itl(); got != tc.want {
			t.Errorf("itl with %d decoding = %v, want %v", tc.decoding, got, tc.want)
		}
	}
}

// streamTiming is when a client saw the first and last content chunks.
type streamTiming struct {
	sent, first, last time.Time
	err               error
}

func timeStream(url, body string) streamTiming {
	st := streamTiming{sent: time.Now()}
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return streamTiming{err: err}
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"content":" `) {
			st.last = time.Now()
			if st.first.IsZero() {
				st.first = st.last
			}
		}
	}
	st.err = sc.Err()
	return st
}

// TestQueueingBeyondMaxBatch runs a long request A, then a short B: with one
// slot B waits for all of A; with two it runs alongside.
func TestQueueingBeyondMaxBatch(t *testing.T) {
	long := `{"messages":[{"content":"a"}],"max_tokens":250,"stream":true}`
	short := `{"messages":[{"content":"b"}],"max_tokens":2,"stream":true}`
	for _, slots := range []int{1, 2} {
		s := startSim(t, func(c *Config) { c.MaxBatch, c.TTFT = slots, 10*time.Millisecond })
		url := s.URL() + "/v1/chat/completions"
		var a, b streamTiming
		var wg sync.WaitGroup
		wg.Go(func() { a = timeStream(url, long) })
		waitFor(t, "A to take a slot", func() bool { return s.batch.state().running == 1 })
		wg.Go(func() { b = timeStream(url, short) })
		if slots == 1 {
			waitFor(t, "B to queue", func() bool { return s.batch.state().waiting == 1 })
		}
		wg.Wait()
		if a.err != nil || b.err != nil {
			t.Fatalf("streams failed: %v, %v", a.err, b.err)
		}
		queued := b.first.After(a.last)
		if queued != (slots == 1) {
			t.Errorf("MaxBatch=%d: B's first token after A's last = %v (A %v..%v, B first %v)",
				slots, queued, a.first.Sub(a.sent), a.last.Sub(a.sent), b.first.Sub(a.sent))
		}
		if ttft := b.first.Sub(b.sent); ttft < s.cfg.TTFT {
			t.Errorf("B's TTFT %v is below the %v base", ttft, s.cfg.TTFT)
		}
	}
}

func TestClientDisconnectFreesSlot(t *testing.T) {
	s := startSim(t, func(c *Config) { c.MaxBatch = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/chat/completions",
		strings.NewReader(`{"messages":[{"content":"a"}],"max_tokens":100000,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	if got := send(t, s.URL()+"/v1/chat/completions", chatBody); got != "ok" {
		t.Fatalf("request after a disconnect: %s", got)
	}
	s.Close()
	if st := s.Stats(); st.Canceled != 1 || st.Completed != 1 || !balanced(st) {
		t.Errorf("stats %+v", st)
	}
}

func TestManyConcurrentStreams(t *testing.T) {
	const n = 1000
	s := startSim(t, func(c *Config) { c.MaxBatch = 250 })
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for range n {
		wg.Go(func() {
			resp, err := client.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(chatStream))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			if got := classify(resp); got != "ok" {
				errs <- got
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("a stream failed: %s", e)
	}
	s.Close()
	if st := s.Stats(); st.Completed != n || st.CompletionTokens != 6*n {
		t.Errorf("stats %+v", st)
	}
}

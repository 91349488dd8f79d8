package sim_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
	"github.com/llmbench/llmbench/transport/telemetry"
)

func postReset(t *testing.T, s *sim.Server) string {
	t.Helper()
	resp, err := http.Post(s.URL()+"/reset_prefix_cache", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// POST /reset_prefix_cache empties the cache as vLLM's does: the prompt
// sent again after it is all prefill, and the one after that cached again.
func TestSimResetPrefixCache(t *testing.T) {
	s := startCacheSim(t, 1000)
	prompt := words("r", 64)
	var got []int
	for i := range 4 {
		if i == 2 {
			if b := postReset(t, s); b != `{"success":true}` {
				t.Fatalf("reset answered %s", b)
			}
		}
		got = append(got, sendPrompt(t, s, transport.Chat, true, prompt).Usage.CachedTokens)
	}
	if want := []int{0, 64, 0, 64}; !slices.Equal(got, want) {
		t.Errorf("cached tokens %v, want %v", got, want)
	}
}

// While a request runs, the reset is refused with {"success": false}, as
// vLLM refuses while running requests hold blocks; llmbench's reset then
// says so once it has asked again long enough.
func TestSimResetRefusedWhileRunning(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.ITL, cfg.Jitter, cfg.PrefixCacheBlocks = 50*time.Millisecond, 0, 100
	s, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c, err := transport.NewClient(transport.Config{URL: s.URL(), API: transport.Chat, Stream: true, Timeout: time.Minute}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	go func() {
		body := transport.BodySpec{API: transport.Chat, Model: cfg.Model, Stream: true}.Body(transport.Prompt{Text: "a b c", MaxTokens: 1000, MinTokens: 1000})
		close(started)
		var rec metrics.Record
		c.Send(ctx, body, &rec)
	}()
	<-started
	for deadline := time.Now().Add(10 * time.Second); ; {
		if b := postReset(t, s); b == `{"success":false}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reset never saw the running request")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err = telemetry.ResetPrefixCache(context.Background(), s.URL()+"/v1")
	if err == nil || !strings.Contains(err.Error(), `answered {"success": false}`) {
		t.Errorf("reset while running: %v", err)
	}
}

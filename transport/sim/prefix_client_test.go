package sim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// startCacheSim is a sim with a prefix cache of blocks of 16 words whose
// prefill costs 1 ms a token and nothing else, so a cached prompt's TTFT
// is visibly shorter.
func startCacheSim(t *testing.T, blocks int) *sim.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.PrefillPerToken, cfg.ITL, cfg.ITLPerSeq, cfg.Jitter, cfg.Model = 0, time.Millisecond, time.Millisecond, 0, 0, "m"
	cfg.PrefixCacheBlocks = blocks
	s, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func sendPrompt(t *testing.T, s *sim.Server, api transport.API, stream bool, prompt string) metrics.Record {
	t.Helper()
	c, err := transport.NewClient(transport.Config{URL: s.URL(), API: api, Stream: stream, Timeout: 10 * time.Second}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := transport.BodySpec{API: api, Model: "m", Stream: stream}.Body(transport.Prompt{Text: prompt, MaxTokens: 2})
	var rec metrics.Record
	c.Send(context.Background(), body, &rec)
	if rec.Err != nil {
		t.Fatalf("%s stream=%v: %+v", api, stream, rec.Err)
	}
	return rec
}

// words is n distinct words starting with tag.
func words(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = tag + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	return strings.Join(w, " ")
}

// Every API the sim serves with usage reports the prefix cache's hits to
// llmbench's client: a prompt's first send is all prefill (0 cached), the
// same prompt again has its whole 16-word blocks cached (200 words: 192),
// and a prompt sharing only its first 40 words gets the two whole blocks
// in them (32). Messages counts the prompt as input_tokens +
// cache_read_input_tokens, which the client adds up.
func TestSimPrefixCacheUsage(t *testing.T) {
	for _, c := range []struct {
		api    transport.API
		stream bool
	}{
		{transport.Chat, true}, {transport.Chat, false}, {transport.Completions, true}, {transport.Completions, false},
		{transport.Responses, true}, {transport.Responses, false}, {transport.Messages, true}, {transport.Messages, false},
	} {
		s := startCacheSim(t, 1000)
		tag := string(c.api)
		prompt := words(tag, 200)
		shared := words(tag, 40) + " " + words("other", 160)
		for i, want := range []int{0, 192, 32} {
			p := prompt
			if i == 2 {
				p = shared
			}
			u := sendPrompt(t, s, c.api, c.stream, p).Usage
			if !u.Reported || !u.CachedReported || u.CachedTokens != want || u.PromptTokens != 200 {
				t.Errorf("%s stream=%v send %d: usage %+v, want 200 prompt tokens, %d cached", c.api, c.stream, i, u, want)
			}
		}
		if st := s.Stats(); st.CachedTokens != 224 || st.PromptTokens != 600 {
			t.Errorf("%s stream=%v: server counted %d cached of %d prompt tokens, want 224 of 600", c.api, c.stream,
				st.CachedTokens, st.PromptTokens)
		}
	}
}

// Without a prefix cache the chat usage has no cached-token field, as
// vLLM's without --enable-prompt-tokens-details: not reported, rather
// than reported 0.
func TestSimWithoutPrefixCache(t *testing.T) {
	s := startCacheSim(t, 0)
	for range 2 {
		if u := sendPrompt(t, s, transport.Chat, true, words("a", 64)).Usage; !u.Reported || u.CachedReported {
			t.Errorf("usage %+v, want no cached count", u)
		}
	}
}

// A cache hit shortens prefill in proportion: 320 uncached words at
// 1 ms each take at least 320 ms to the first token; the same prompt
// again, all 20 blocks cached, skips it. Bounds are generous: only the
// planned prefill is certain.
func TestSimPrefixCacheShortensPrefill(t *testing.T) {
	s := startCacheSim(t, 1000)
	prompt := words("p", 320)
	ttft := func() time.Duration {
		r := sendPrompt(t, s, transport.Chat, true, prompt)
		return time.Duration(r.Chunks[0] - r.Sent)
	}
	cold, warm := ttft(), ttft()
	if cold < 320*time.Millisecond || warm > cold/2 {
		t.Errorf("TTFT cold %v (want >= 320ms), warm %v (want well under half of it)", cold, warm)
	}
}

// An LRU too small for the prompts evicts them before they come back.
func TestSimPrefixCacheEvicts(t *testing.T) {
	s := startCacheSim(t, 4) // 4 blocks: one 64-word prompt
	a, b := words("a", 64), words("b", 64)
	for i, p := range []string{a, b, a} {
		if u := sendPrompt(t, s, transport.Chat, false, p).Usage; u.CachedTokens != 0 {
			t.Errorf("send %d: %d cached, want 0 (evicted)", i, u.CachedTokens)
		}
	}
	if u := sendPrompt(t, s, transport.Chat, false, a).Usage; u.CachedTokens != 64 {
		t.Errorf("repeat: %d cached, want 64", u.CachedTokens)
	}
}

package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const chatStream = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":6,"stream":true}`
const chatBody = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":6}`

// classify reads a response to its end the way a client would account for
// it: an HTTP status, a reset (truncated body), malformed JSON, or ok.
func classify(resp *http.Response) string {
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprint(resp.StatusCode)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			return "reset"
		case !json.Valid(body):
			return "malformed"
		}
		return "ok"
	}
	events, err := readEvents(resp.Body)
	if err != nil || len(events) == 0 || events[len(events)-1] != "[DONE]" {
		return "reset"
	}
	for _, e := range events[:len(events)-1] {
		if !json.Valid([]byte(e)) {
			return "malformed"
		}
	}
	return "ok"
}

// send posts body and classifies the outcome; a request the server reset
// before any response is a "reset" too.
func send(t *testing.T, url, body string, header ...string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "reset"
	}
	defer resp.Body.Close()
	return classify(resp)
}

func TestForcedFaults(t *testing.T) {
	tests := []struct {
		name, fault, body string
		path              string
		want              string
		check             func(Stats) bool
	}{
		{"429", "429", chatStream, "/v1/chat/completions", "429", func(s Stats) bool { return s.Status429 == 1 }},
		{"500", "500", `{"prompt":"x"}`, "/v1/completions", "500", func(s Stats) bool { return s.Status500 == 1 }},
		{"reset stream", "reset", chatStream, "/v1/chat/completions", "reset", func(s Stats) bool { return s.Resets == 1 }},
		{"reset body", "reset", chatBody, "/v1/chat/completions", "reset", func(s Stats) bool { return s.Resets == 1 }},
		{"reset embeddings", "reset", `{"input":"x"}`, "/v1/embeddings", "reset", func(s Stats) bool { return s.Resets == 1 }},
		{"malformed stream", "malformed", chatStream, "/v1/chat/completions", "malformed",
			func(s Stats) bool { return s.Malformed == 1 && s.Completed == 1 && s.CompletionTokens == 6 }},
		{"malformed body", "malformed", chatBody, "/v1/chat/completions", "malformed", func(s Stats) bool { return s.Malformed == 1 }},
		{"stall", "stall", chatStream, "/v1/chat/completions", "ok", func(s Stats) bool { return s.Stalls == 1 && s.Completed == 1 }},
		{"none overrides rates", "none", chatStream, "/v1/chat/completions", "ok", func(s Stats) bool { return s.Completed == 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, func(c *Config) { c.ErrorRate500 = 1 }) // the header must win
			start := time.Now()
			if got := send(t, s.URL()+tc.path, tc.body, FaultHeader, tc.fault); got != tc.want {
				t.Errorf("outcome %q, want %q", got, tc.want)
			}
			if tc.fault == "stall" && time.Since(start) < s.cfg.Stall {
				t.Errorf("stalled stream took %v, less than the %v stall", time.Since(start), s.cfg.Stall)
			}
			s.Close()
			st := s.Stats()
			if !tc.check(st) || !balanced(st) || st.Requests != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// balanced checks every request ended in exactly one terminal counter.
func balanced(s Stats) bool {
	return s.Requests == s.Completed+s.Canceled+s.BadRequest+s.Status429+s.Status500+s.Resets
}

func TestMalformedStreamKeepsTokens(t *testing.T) {
	s := startSim(t, nil)
	resp := post(t, s.URL()+"/v1/chat/completions", chatStream, FaultHeader, "malformed")
	events, err := readEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	bad, tokens := 0, 0
	for _, e := range events {
		switch {
		case !json.Valid([]byte(e)) && e != "[DONE]":
			bad++
		case strings.Contains(e, `"content":" `):
			tokens++
		}
	}
	if bad != 1 || tokens != 6 || events[len(events)-1] != "[DONE]" {
		t.Errorf("%d malformed events and %d tokens, want 1 and 6: %q", bad, tokens, events)
	}
}

// faultRun sends n sequential streams to a fresh server and returns each
// outcome and the server's counters.
func faultRun(t *testing.T, seed int64, n int) ([]string, Stats) {
	s := startSim(t, func(c *Config) {
		c.Seed = seed
		c.ErrorRate429, c.ErrorRate500, c.ResetRate, c.MalformedRate, c.StallRate = 0.15, 0.15, 0.15, 0.15, 0.15
		c.Stall = time.Millisecond
	})
	out := make([]string, n)
	for i := range out {
		out[i] = send(t, s.URL()+"/v1/chat/completions", chatStream)
	}
	s.Close()
	return out, s.Stats()
}

func TestSeededFaultsAreDeterministic(t *testing.T) {
	a, statsA := faultRun(t, 7, 40)
	b, statsB := faultRun(t, 7, 40)
	c, _ := faultRun(t, 8, 40)
	if fmt.Sprint(a) != fmt.Sprint(b) || statsA != statsB {
		t.Errorf("same seed, different runs:\n%v %+v\n%v %+v", a, statsA, b, statsB)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 7 and 8 gave the same faults: %v", a)
	}
	seen := map[string]int{}
	for _, o := range a {
		seen[o]++
	}
	for _, kind := range []string{"ok", "429", "500", "reset", "malformed"} {
		if seen[kind] == 0 {
			t.Errorf("no %q outcome in %v", kind, a)
		}
	}
	if statsA.Stalls == 0 || !balanced(statsA) || int(statsA.Resets) != seen["reset"] || int(statsA.Status429) != seen["429"] {
		t.Errorf("stats %+v disagree with client outcomes %v", statsA, seen)
	}
}

func TestPickFaultFollowsRates(t *testing.T) {
	c := Config{ErrorRate429: 0.1, ErrorRate500: 0.2, ResetRate: 0.3, StallRate: 0.1}
	tests := []struct {
		u    float64
		want fault
	}{
		{0, fault429}, {0.05, fault429}, {0.15, fault500}, {0.25, fault500}, {0.35, faultReset},
		{0.55, faultReset}, {0.65, faultStall}, {0.75, faultNone}, {0.999, faultNone},
	}
	for _, tc := range tests {
		if got := c.pickFault(tc.u); got != tc.want {
			t.Errorf("pickFault(%g) = %d, want %d", tc.u, got, tc.want)
		}
	}
}

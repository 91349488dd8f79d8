package vllmbench

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// The fixture (testdata/make.sh) read back: its first request by hand
// from the file — sent at the date, TTFT 0.028332009 s, a first gap of
// 0.0000157960 s, latency 0.131839101 s, 14 tokens in, 12 out — and its
// second sent 0.000261890 s after the first on vllm bench's clock.
func TestReadFixture(t *testing.T) {
	f, err := os.Open("testdata/vllm-bench-serve.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "openai-chat" || res.Model != "llmbench-sim" || res.MaxConcurrency != 4 || !math.IsInf(res.RequestRate, 1) || len(res.Records) != 40 {
		t.Fatalf("%+v", res)
	}
	origin := time.Date(2026, 12, 5, 16, 36, 3, 0, time.UTC).UnixNano()
	r := res.Records[0]
	if r.Sent != origin || r.Chunks[0]-r.Sent != 28332009 || r.Chunks[1]-r.Chunks[0] != 15796 ||
		r.Done-r.Sent != 131839101 || r.InputTokens != 14 || r.OutputTokens != 12 || r.Err != nil || r.Output == "" {
		t.Errorf("first request %+v", r)
	}
	if d := res.Records[1].Sent - origin; d < 261889 || d > 261891 {
		t.Errorf("second request sent %d ns after the first, want 261890", d)
	}
}

// A result saved without --save-detailed, or whose lists disagree, or
// that is not vllm bench's at all, is refused saying why.
func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"date": "20261205-163603", "backend": "openai-chat", "completed": 4}`, ErrNotDetailed.Error()},
		{`{"date": "20261205-163603", "backend": "vllm", "ttfts": [0.1], "start_times": [1], "input_lens": [1], "output_lens": [1], "itls": [[]], "latencies": [0.2], "errors": []}`, "errors has 0 values for 1 requests"},
		{`{"date": "yesterday", "backend": "vllm", "ttfts": [0.1], "start_times": [1], "input_lens": [1], "output_lens": [1], "itls": [[]], "latencies": [0.2], "errors": [""]}`, `date "yesterday"`},
		{`{"date": "20261205-163603", "backend": "vllm", "ttfts": [-1], "start_times": [1], "input_lens": [1], "output_lens": [1], "itls": [[]], "latencies": [0.2], "errors": [""]}`, "not a duration"},
		{`[1, 2]`, "not a vllm bench serve result"},
	} {
		_, err := Read(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	if _, err := Read(strings.NewReader(`{"date": "20261205-163603", "backend": "vllm", "ttfts": []}`)); !errors.Is(err, ErrNotDetailed) {
		t.Errorf("no requests: %v", err)
	}
}

// A failed request keeps vllm bench's message and its latency.
func TestReadFailure(t *testing.T) {
	doc := `{"date": "20261205-163603", "backend": "openai", "request_rate": 2.5, "ttfts": [0, 0.1], "start_times": [5, 6],
	  "input_lens": [3, 3], "output_lens": [0, 2], "itls": [[], [0.01]], "latencies": [0.05, 0.2], "errors": ["HTTP 500", ""]}`
	res, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if res.RequestRate != 2.5 || res.Records[0].Err == nil || res.Records[0].Err.Message != "HTTP 500" || res.Records[0].Done-res.Records[0].Sent != 50e6 ||
		len(res.Records[1].Chunks) != 2 || res.Records[1].Sent-res.Records[0].Sent != 1e9 {
		t.Errorf("%+v", res.Records)
	}
	if !Sniff([]byte(doc)) || Sniff([]byte(`{"experiments": []}`)) {
		t.Error("Sniff")
	}
}

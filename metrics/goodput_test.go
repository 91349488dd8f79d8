package metrics

import (
	"strings"
	"testing"
)

func TestParseGoodput(t *testing.T) {
	cases := []struct {
		spec    string
		want    SLO
		wantErr string // substring of the error; "" for success
	}{
		{"time_to_first_token:5", SLO{GoodputTTFT, 5}, ""},
		{"ttft:500", SLO{GoodputTTFT, 500}, ""},
		{"time_to_second_token:2.5", SLO{GoodputTTST, 2.5}, ""},
		{"ttst:1", SLO{GoodputTTST, 1}, ""},
		{"inter_token_latency:50", SLO{GoodputITL, 50}, ""},
		{"itl:50", SLO{GoodputITL, 50}, ""},
		{"request_latency:13", SLO{GoodputRequestLatency, 13}, ""},
		{"output_token_throughput_per_user:20", SLO{GoodputTPSUser, 20}, ""},
		{" ttft : 0 ", SLO{GoodputTTFT, 0}, ""},
		{"ttft:1e3", SLO{GoodputTTFT, 1000}, ""},
		{"ttft", SLO{}, "want name:value"},
		{"ttfb:5", SLO{}, `unknown goodput metric "ttfb"`},
		{"output_token_throughput_per_request:5", SLO{}, "unknown goodput metric"},
		{"ttft:-1", SLO{}, "not a non-negative number"},
		{"ttft:fast", SLO{}, "not a non-negative number"},
		{"ttft:", SLO{}, "not a non-negative number"},
		{"ttft:NaN", SLO{}, "not a non-negative number"},
		{"ttft:Inf", SLO{}, "not a non-negative number"},
	}
	for _, c := range cases {
		got, err := ParseGoodput(c.spec)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("ParseGoodput(%q): %v", c.spec, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("ParseGoodput(%q) error = %v, want one containing %q", c.spec, err, c.wantErr)
		case got != c.want:
			t.Errorf("ParseGoodput(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
}

func TestSLOMet(t *testing.T) {
	// A streamed request: ttft 4 ms, ttst 3 ms, itl 3.5 ms, latency 11 ms, 285.7 tok/s.
	full := RequestMetrics{HasContent: true, TTFT: 4e6, Latency: 11e6, HasTTST: true, TTST: 3e6,
		HasITL: true, ITL: 3_500_000, HasTPSUser: true, TPSUser: 285.7142857142857}
	// A single-chunk request: only ttft and latency (5 ms).
	single := RequestMetrics{HasContent: true, TTFT: 5e6, Latency: 5e6}
	cases := []struct {
		name string
		slo  SLO
		m    RequestMetrics
		want bool
	}{
		{"ttft below", SLO{GoodputTTFT, 5}, full, true},
		{"ttft equal passes (only > fails)", SLO{GoodputTTFT, 4}, full, true},
		{"ttft 1 ns over fails", SLO{GoodputTTFT, 3.999999}, full, false},
		{"ttst", SLO{GoodputTTST, 3}, full, true},
		{"itl equal", SLO{GoodputITL, 3.5}, full, true},
		{"itl over", SLO{GoodputITL, 3.4}, full, false},
		{"latency", SLO{GoodputRequestLatency, 11}, full, true},
		{"latency over", SLO{GoodputRequestLatency, 10.9}, full, false},
		{"tps equal passes (only < fails)", SLO{GoodputTPSUser, 285.7142857142857}, full, true},
		{"tps under", SLO{GoodputTPSUser, 286}, full, false},
		{"no itl cannot meet itl", SLO{GoodputITL, 1000}, single, false},
		{"no ttst cannot meet ttst", SLO{GoodputTTST, 1000}, single, false},
		{"no tps cannot meet tps", SLO{GoodputTPSUser, 0}, single, false},
		{"single meets ttft", SLO{GoodputTTFT, 5}, single, true},
		{"no content meets nothing", SLO{GoodputRequestLatency, 1e9}, RequestMetrics{}, false},
		{"unknown metric never met", SLO{"ttfb", 1e9}, full, false},
	}
	for _, c := range cases {
		if got := c.slo.Met(&c.m); got != c.want {
			t.Errorf("%s: Met = %v, want %v", c.name, got, c.want)
		}
	}
}

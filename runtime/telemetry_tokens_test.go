package runtime

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// lengths is a distribution of n requests summing to total tokens: the
// first n−1 of total/n, the last the rest.
func lengths(n int, total float64) *metrics.Distribution {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(int(total) / n)
	}
	v[n-1] += total - float64(int(total)/n*n)
	return metrics.NewDistribution(v)
}

// The client's sums against the server's counters, by hand: 40 requests
// of 64 generated tokens counted from usage agree exactly (2,560 both),
// as do 40 × 210 prompt tokens; 2,585 against 2,560 is 0.98%, within the
// 1% tolerance; 2,586 is 1.02%, past it; re-tokenized text's 2,641 is
// +3.2% and the warning says the tokenizer is why. No check when the
// server counted other requests than the client (39 of 40) or a
// request had its first token before the window (an open loop's
// warm-up overlapping it), and no ISL
// check unless the client counted usage (a tokenizer leaves out the chat
// template the server prefills).
func TestCheckTokens(t *testing.T) {
	agree := &ServerWindow{ServerCount: 40, ClientCount: 40, ClientInWindow: 40, ClientTTFTInWindow: 40}
	for _, c := range []struct {
		name     string
		sw       *ServerWindow
		mode     CountMode
		osl      float64
		checks   []string // what:agree
		warnings []string
	}{
		{"usage exact", agree, ByUsage, 2560, []string{"osl:true", "isl:true"}, nil},
		{"within 1%", agree, ByUsage, 2585, []string{"osl:true", "isl:true"}, nil},
		{"past 1%", agree, ByUsage, 2586, []string{"osl:false", "isl:true"},
			[]string{"the client's output lengths sum to 2586 tokens, the server counted 2560 generated tokens over the same requests (+1.0%, more than 1%)"}},
		{"tokenizer", agree, ByTokenizer, 2641, []string{"osl:false"},
			[]string{"(+3.2%, more than 1%); counted by tokenizer, the output text re-tokenized is not the tokens generated"}},
		{"other requests", &ServerWindow{ServerCount: 39, ClientCount: 40, ClientInWindow: 40, ClientTTFTInWindow: 40}, ByUsage, 2641, nil, nil},
		{"begun before the window", &ServerWindow{ServerCount: 40, ClientCount: 40, ClientInWindow: 40, ClientTTFTInWindow: 39}, ByUsage, 2641, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt := &PointTelemetry{ServerWindow: c.sw}
			pt.Summary.Server.GenerationTokens = metrics.TelemetryValue{Value: 2560, OK: true}
			pt.Summary.Server.PromptTokens = metrics.TelemetryValue{Value: 8400, OK: true}
			s := &metrics.Summary{OutputSequenceLength: lengths(40, c.osl), InputSequenceLength: lengths(40, 8400)}
			pt.checkTokens(s, Counting{Mode: c.mode})
			var got []string
			for _, k := range pt.TokenChecks {
				got = append(got, k.What+":"+map[bool]string{true: "true", false: "false"}[k.Agree])
			}
			if strings.Join(got, " ") != strings.Join(c.checks, " ") {
				t.Errorf("checks %v, want %v", got, c.checks)
			}
			if len(pt.Warnings) != len(c.warnings) {
				t.Fatalf("warnings %q, want %d", pt.Warnings, len(c.warnings))
			}
			for i, w := range c.warnings {
				if !strings.Contains(pt.Warnings[i], w) {
					t.Errorf("warning %q lacks %q", pt.Warnings[i], w)
				}
			}
		})
	}
}

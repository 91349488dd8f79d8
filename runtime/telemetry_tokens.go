package runtime

import (
	"fmt"
	"math"

	"github.com/llmbench/llmbench/metrics"
)

// TokenTolerance is how far (relative to the server's count) the
// client's sum of a point's sequence lengths may lie from the server's
// token counter over the same requests before it is a warning: 1%.
// Lengths counted from usage agree exactly with vLLM 0.32's counters
// (measured: 1,280 of 1,280 generated and 4,200 of 4,200 prompt tokens
// at concurrency 4, and every one of the e2e suite's runs); lengths
// counted by re-tokenizing the output text drift from the generated
// tokens by a few percent (measured: 1,341 against 1,280, +4.8%; 2,641
// against 2,560, +3.2%), which is what the check is there to show.
const TokenTolerance = 0.01

// TokenCheck sets a point's client-side token sums beside the server's
// counters over the same requests (issue 28 item 4).
type TokenCheck struct {
	// What is "osl" (Σ output sequence lengths against the generated
	// tokens) or "isl" (Σ input sequence lengths against the prompt
	// tokens).
	What string `json:"what"`
	// Client and Server are the two totals; CountedBy is how the client
	// counted (usage, tokenizer, chunks).
	Client    float64 `json:"client"`
	Server    float64 `json:"server"`
	CountedBy string  `json:"counted_by"`
	// Agree says |Client − Server| ≤ TokenTolerance × Server.
	Agree bool `json:"agree"`
}

// checkTokens compares the client's ISL and OSL sums with the server's
// token counters, when both sides counted the same requests whole (the
// server window's counts agree, and every measured request had its
// first token and its end inside it: the counters count tokens as they
// are prefilled and generated, so a request begun before the window's
// start is only partly in them): the ISL only
// when counted from usage, since a tokenizer counts the prompt text
// without the chat template the server also prefills. A disagreement
// beyond TokenTolerance is a warning saying both totals and how the
// client counted.
func (pt *PointTelemetry) checkTokens(s *metrics.Summary, counting Counting) {
	sw := pt.ServerWindow
	if sw == nil || sw.ClientCount == 0 || sw.ServerCount != float64(sw.ClientCount) ||
		sw.ClientInWindow != sw.ClientCount || sw.ClientTTFTInWindow != sw.ClientCount {
		return
	}
	srv := &pt.Summary.Server
	add := func(what string, d *metrics.Distribution, server metrics.TelemetryValue) {
		if d == nil || !server.OK || server.Value <= 0 {
			return
		}
		c := TokenCheck{What: what, Client: math.Round(d.Avg * float64(d.Count)), Server: server.Value, CountedBy: string(counting.Mode)}
		c.Agree = math.Abs(c.Client-c.Server) <= TokenTolerance*c.Server
		pt.TokenChecks = append(pt.TokenChecks, c)
		if !c.Agree {
			pt.Warnings = append(pt.Warnings, c.warning())
		}
	}
	add("osl", s.OutputSequenceLength, srv.GenerationTokens)
	if counting.Mode == ByUsage && counting.Fallbacks == 0 {
		add("isl", s.InputSequenceLength, srv.PromptTokens)
	}
}

// warning says a disagreement in words.
func (c TokenCheck) warning() string {
	names := map[string][2]string{"osl": {"output", "generated"}, "isl": {"input", "prompt"}}[c.What]
	msg := fmt.Sprintf("telemetry: the client's %s lengths sum to %.0f tokens, the server counted %.0f %s tokens over the same requests (%+.1f%%, more than %.0f%%)",
		names[0], c.Client, c.Server, names[1], 100*(c.Client/c.Server-1), 100*TokenTolerance)
	if c.CountedBy == string(ByTokenizer) && c.What == "osl" {
		msg += "; counted by tokenizer, the output text re-tokenized is not the tokens generated: --token-count usage (token_count = \"usage\") counts the server's own"
	} else if c.CountedBy == string(ByChunks) {
		msg += "; counted by chunks, a chunk is not always one token: --token-count usage counts the server's own"
	}
	return msg
}

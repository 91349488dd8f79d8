package bench

import (
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// BenchmarkTritonRequest is BenchmarkRequest through the triton client:
// one-token answers on ModelStreamInfer (a token response and the empty
// final one), so the per-request cost of gRPC — the stream, the tensors
// decoded from the body, the protobuf messages — dominates.
func BenchmarkTritonRequest(b *testing.B) {
	benchRequests(b, transport.Triton)
}

// BenchmarkHTTPRequest is the same load through the HTTP client (chat,
// SSE), for the side-by-side figure.
func BenchmarkHTTPRequest(b *testing.B) {
	benchRequests(b, transport.Chat)
}

func benchRequests(b *testing.B, api transport.API) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = 0, 0, 0, 0, 0, 1024
	cfg.GRPCAddr = "127.0.0.1:0"
	urls := startSimURLs(b, cfg)
	url := urls[0]
	if api == transport.Triton {
		url = urls[1]
	}
	b.ResetTimer()
	var cpu time.Duration
	var reqs int
	for range b.N {
		m := measureAPI(b, api, url, engine.Point{Load: plan.Load{Concurrency: 32}, Stop: plan.Stop{Requests: 20000}}, 32, 1)
		cpu += m.cpu
		reqs += len(m.res.Records)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(reqs), "client-cpu-ns/request")
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkTritonStreamedToken is BenchmarkStreamedToken through the
// triton client: 512-token answers, one gRPC message per token.
func BenchmarkTritonStreamedToken(b *testing.B) {
	benchTokens(b, transport.Triton)
}

// BenchmarkHTTPStreamedToken is the same load over HTTP/SSE.
func BenchmarkHTTPStreamedToken(b *testing.B) {
	benchTokens(b, transport.Chat)
}

func benchTokens(b *testing.B, api transport.API) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Millisecond, 2*time.Millisecond, 0, 0, 0, 1024
	cfg.GRPCAddr = "127.0.0.1:0"
	urls := startSimURLs(b, cfg)
	url := urls[0]
	if api == transport.Triton {
		url = urls[1]
	}
	b.ResetTimer()
	var cpu time.Duration
	var tokens int
	for range b.N {
		m := measureAPI(b, api, url, engine.Point{Load: plan.Load{Concurrency: 256}, Stop: plan.Stop{Requests: 1024}}, 32, 512)
		cpu += m.cpu
		tokens += m.tokens
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(tokens), "client-cpu-ns/token")
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

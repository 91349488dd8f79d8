package sim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// BenchmarkStreamedToken measures what one streamed token costs the sim
// (plus a minimal reader on the same machine) with all delays at zero:
// the ceiling on tokens per second the sim can feed a client under test.
func BenchmarkStreamedToken(b *testing.B) {
	for _, streams := range []int{1, 64} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			s := startSim(b, func(c *Config) {
				c.TTFT, c.ITL, c.MaxBatch = 0, 0, streams
			})
			tr := &http.Transport{MaxIdleConnsPerHost: streams}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for i := range streams {
				n := b.N / streams
				if i < b.N%streams {
					n++
				}
				if n > 0 {
					wg.Go(func() { drainStream(b, client, s.URL(), n) })
				}
			}
			wg.Wait()
		})
	}
}

func drainStream(b *testing.B, client *http.Client, url string, tokens int) {
	body := fmt.Sprintf(`{"messages":[{"content":"x"}],"max_tokens":%d,"stream":true}`, tokens)
	resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Error(err)
	}
}

package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
)

// acceptText asks for the classic text format: the one every exporter
// this package targets serves, and the one Parse reads. Without it
// prometheus_client (vLLM, SGLang) may answer OpenMetrics to a client that
// accepts anything.
const acceptText = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

// newClient builds the scraper's own net/http client. It shares nothing
// with the load generator's fasthttp connections, so a scrape never waits
// behind a stream, and it keeps one idle connection per URL alive between
// scrapes (three a second would otherwise each pay a TCP handshake on the
// GPU host). Compression is off: an exposition is tens of kilobytes on a
// LAN, and gzip would cost CPU on the machine being measured. No proxy
// is used, as the load generator uses none: metrics endpoints sit beside
// the server under test. Timeouts come from each scrape's context.
func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// fetcher is what one goroutine needs to scrape one URL. Its body buffer
// and parser are reused from scrape to scrape, so they grow once per URL,
// not once per scrape.
type fetcher struct {
	target
	client  *http.Client
	clock   *transport.Clock
	maxBody int64
	buf     bytes.Buffer
	parser  *parser
}

// result is one scrape's outcome. Its samples are stamped with sent, not
// at: the exposition is the server's state at some instant after the GET
// left, so only a scrape sent after a response is sure to count it. A
// scrape sent before a point's last response whose headers arrive after
// it would otherwise bound the point's window and miss that request.
type result struct {
	samples []metrics.TelemetrySample
	sent    int64         // when the GET was handed to the connection
	at      int64         // when the response headers arrived (or the failure was seen)
	cpu     time.Duration // thread CPU reading and parsing the body
	err     error
}

// scrape GETs the URL once within timeout. Its error names the display URL
// and says what was wrong; it never contains credentials.
func (f *fetcher) scrape(ctx context.Context, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return result{at: f.clock.Now(), err: f.fail("cannot build the request")}
	}
	req.Header.Set("Accept", acceptText)
	req.Header.Set("User-Agent", "llmbench-telemetry")
	sent := f.clock.Now()
	resp, err := f.client.Do(req)
	at := f.clock.Now()
	if err != nil {
		return result{sent: sent, at: at, err: f.fail(f.why(ctx, err, timeout))}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Read a little so the connection can be reused, then give up.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return result{sent: sent, at: at, err: f.fail("HTTP " + resp.Status)}
	}
	r := result{sent: sent, at: at}
	r.cpu = onThread(func() {
		if err := f.readBody(resp.Body); err != nil {
			r.err = f.fail(f.why(ctx, err, timeout))
			return
		}
		samples, err := f.parser.parseBytes(f.buf.Bytes(), f.source, sent)
		if err != nil {
			r.err = f.fail("parse: " + err.Error())
			return
		}
		r.samples = samples
	})
	return r
}

// readBody reads the body into the reused buffer, at most maxBody bytes:
// an endless or runaway body is an error, not a growing heap.
func (f *fetcher) readBody(body io.Reader) error {
	f.buf.Reset()
	n, err := f.buf.ReadFrom(io.LimitReader(body, f.maxBody+1))
	if err != nil {
		return err
	}
	if n > f.maxBody {
		f.buf.Reset()
		return fmt.Errorf("body exceeds the %s limit", byteSize(f.maxBody))
	}
	return nil
}

// why turns a transport error into words: a deadline is "no complete
// answer within", not the context's own message.
func (f *fetcher) why(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "no complete answer within " + timeout.String()
	}
	return errorText(err)
}

func (f *fetcher) fail(what string) error {
	return fmt.Errorf("telemetry: GET %s: %s", f.display, what)
}

// byteSize writes a limit in the unit it was most likely set in.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

package transport

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
)

// faultCase is one way a server can misbehave, and what the client must
// record for every request sent to it.
type faultCase struct {
	item   string // the issue item it belongs to
	name   string
	stream bool
	api    API
	n      int    // requests to send
	script script // the server; nil with listen
	listen func(t *testing.T) string
	cfg    func(*Config)
	class  metrics.ErrorClass // "" for a completed request
	also   metrics.ErrorClass // another class a request may get, when the kernel decides
	msg    string             // a part of the failure message
	check  func(t *testing.T, rec *metrics.Record)
	// within bounds each request's send-to-done time (0: not checked); the
	// configured request timeout is far longer, so a hang fails.
	within time.Duration
}

const (
	usageZero     = `data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":7}}` + "\n\n"
	toolCallDelta = `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}` + "\n\n"
	toolFinish    = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"
	chatJSON      = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`
)

func idle(d time.Duration) func(*Config) { return func(c *Config) { c.IdleTimeout = d } }

func limits(resp, line int64) func(*Config) {
	return func(c *Config) { c.MaxResponseSize, c.MaxSSELineSize = resp, line }
}

// output checks a completed request's text and chunk count.
func output(text string, chunks int) func(*testing.T, *metrics.Record) {
	return func(t *testing.T, rec *metrics.Record) {
		if rec.Output != text || len(rec.Chunks) != chunks {
			t.Errorf("output %q in %d chunks, want %q in %d", rec.Output, len(rec.Chunks), text, chunks)
		}
	}
}

func emptyStreamFaults() []faultCase {
	return []faultCase{
		{item: "1 empty", name: "only [DONE]", stream: true, script: send(sse(doneEvent)), class: metrics.ErrEmpty, msg: "without content"},
		{item: "1 empty", name: "gzip body not asked for", stream: true, script: send(gzipSSE(content("hi") + finish + doneEvent)),
			class: metrics.ErrEmpty, msg: "Content-Encoding gzip"},
		{item: "1 empty", name: "non-SSE junk", stream: true, script: send(sse("<html><body>502 Bad Gateway</body></html>\n")),
			class: metrics.ErrEmpty, msg: "no SSE event"},
		{item: "1 empty", name: "role-only chunk then EOF", stream: true, script: send(sse(roleOnly)), class: metrics.ErrEmpty},
		{item: "1 empty", name: "keep-alive comments then EOF", stream: true, script: send(sse(": ping\n\n: ping\n\n")), class: metrics.ErrEmpty},
		{item: "1 empty", name: "usage claims tokens, no content", stream: true, script: send(sse(roleOnly + usageOnly + doneEvent)),
			class: metrics.ErrEmpty, msg: "usage reports completion tokens"},
		{item: "1 truncated", name: "content then EOF", stream: true, script: send(sse(roleOnly + content("a") + content("b"))),
			class: metrics.ErrTruncated, msg: "without finish_reason"},
		{item: "1 ok", name: "content + finish_reason, no [DONE]", stream: true, script: send(sse(content("a") + finish)), check: output("a", 1)},
		{item: "1 ok", name: "content + usage, no [DONE]", stream: true, script: send(sse(content("a") + usageOnly)), check: output("a", 1)},
		{item: "1 ok", name: "content + [DONE], no finish_reason", stream: true, script: send(sse(content("a") + doneEvent)), check: output("a", 1)},
		{item: "1 ok", name: "finish_reason + usage 0 tokens, no content", stream: true, script: send(sse(roleOnly + finish + usageZero + doneEvent)),
			check: output("", 1)},
		{item: "1 ok", name: "tool call arguments", stream: true, script: send(sse(roleOnly + toolCallDelta + toolFinish + doneEvent)),
			check: output(`{"x":1}`, 1)},
	}
}

func emptyWholeFaults() []faultCase {
	return []faultCase{
		{item: "1 empty", name: "{}", script: send(whole(200, "application/json", `{}`)), class: metrics.ErrEmpty, msg: "response without content"},
		{item: "1 empty", name: "no choices", script: send(whole(200, "application/json", `{"object":"chat.completion","choices":[]}`)), class: metrics.ErrEmpty},
		{item: "1 empty", name: "usage claims tokens, empty message", script: send(whole(200, "application/json",
			`{"choices":[{"message":{"content":""}}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`)), class: metrics.ErrEmpty},
		{item: "1 malformed", name: "gzip body not asked for", script: send(whole(200, "application/json", gzipped(chatJSON), "Content-Encoding: gzip")),
			class: metrics.ErrMalformed, msg: "Content-Encoding gzip"},
		{item: "1 malformed", name: "HTML page", script: send(whole(200, "text/html", "<html>\x00\x01 oops</html>")), class: metrics.ErrMalformed},
		{item: "1 ok", name: "answer", script: send(whole(200, "application/json", chatJSON)), check: output("hi", 1)},
		{item: "1 ok", name: "finish_reason + usage 0 tokens", script: send(whole(200, "application/json",
			`{"choices":[{"message":{"content":""},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":0}}`)), check: output("", 1)},
		{item: "1 ok", name: "embeddings", api: Embeddings, script: send(whole(200, "application/json",
			`{"object":"list","data":[{"embedding":[0.1,0.2]}],"usage":{"prompt_tokens":3,"total_tokens":3}}`)), check: output("", 1)},
	}
}

func utf8Faults() []faultCase {
	euro := "x" + strings.Repeat("€", 100) // 301 bytes: byte 200 is inside a rune
	return []faultCase{
		{item: "2 utf-8", name: "300-byte multi-byte error body", script: send(whole(500, "text/plain", euro)), class: metrics.ErrHTTP, msg: "€€€"},
		{item: "2 utf-8", name: "300-byte multi-byte error message (stream)", stream: true,
			script: send(whole(503, "application/json", `{"error":{"message":"`+euro+`"}}`)), class: metrics.ErrHTTP, msg: "x€€"},
		{item: "2 utf-8", name: "gzip error body", script: send(whole(500, "application/json", gzipped(strings.Repeat(`{"error":"overloaded"}`, 20)), "Content-Encoding: gzip")),
			class: metrics.ErrHTTP, msg: `\x1f\x8b`},
		{item: "2 utf-8", name: "invalid bytes in content", stream: true,
			script: send(sse(content("a") + "data: {\"choices\":[{\"delta\":{\"content\":\"b\xff\xfec\"}}]}\n\n" + finish)), check: output("ab\uFFFD\uFFFDc", 2)},
		{item: "2 utf-8", name: "character split across events", stream: true,
			script: send(sse("data: {\"choices\":[{\"delta\":{\"content\":\"a\xe2\x82\"}}]}\n\n" + "data: {\"choices\":[{\"delta\":{\"content\":\"\xac b\"}}]}\n\n" + finish)),
			check:  output("a€ b", 2)},
		{item: "2 utf-8", name: "malformed event with binary", stream: true, script: send(sse(content("a") + "data: {\"choices\":[\xff\xfe\x00\n\n")),
			class: metrics.ErrMalformed, msg: `\xff\xfe`},
		{item: "2 utf-8", name: "event: error, long binary text", stream: true,
			script: send(sse("event: error\ndata: " + strings.Repeat("\xff€\x01", 100) + "\n\n")), class: metrics.ErrServer},
	}
}

func timeoutFaults() []faultCase {
	const idleFor = 300 * time.Millisecond
	return []faultCase{
		{item: "3 timeout", name: "black hole: reads, never answers (stream)", stream: true, n: 2, script: silence, cfg: idle(idleFor),
			class: metrics.ErrTimeout, msg: "idle timeout", within: 20 * time.Second},
		{item: "3 timeout", name: "black hole: reads, never answers", n: 2, script: silence, cfg: idle(idleFor),
			class: metrics.ErrTimeout, msg: "idle timeout", within: 20 * time.Second},
		{item: "3 timeout", name: "black hole, no idle timeout: request timeout", n: 2, script: silence,
			cfg: func(c *Config) { c.Timeout = 500 * time.Millisecond }, class: metrics.ErrTimeout, within: 20 * time.Second},
		{item: "3 timeout", name: "headers and role chunk, then silence", stream: true, n: 2, script: then(send(sse(roleOnly)), silence),
			cfg: idle(idleFor), class: metrics.ErrTimeout, msg: "idle timeout", within: 20 * time.Second},
		// A connect to a full accept queue hangs (the SYN is dropped), or
		// completes on the client's side only (the kernel drops the final
		// ACK instead), and then the request waits for headers: either
		// way it ends within the idle timeout.
		{item: "3 timeout", name: "never accepts (full backlog)", n: 4, listen: fullBacklog, cfg: idle(idleFor),
			class: metrics.ErrConnect, also: metrics.ErrTimeout, within: 20 * time.Second},
		{item: "3 ok", name: "whole body trickles, each gap < idle", n: 1, script: trickle(whole(200, "application/json", chatJSON), 8*time.Millisecond),
			cfg: idle(idleFor), check: output("hi", 1)},
		{item: "3 ok", name: "stream trickles, each gap < idle", stream: true, n: 1,
			script: trickle(sse(content("a")+finish), 4*time.Millisecond), cfg: idle(idleFor), check: output("a", 1)},
	}
}

func sizeFaults() []faultCase {
	return []faultCase{
		{item: "4 oversize", name: "stream over max response size", stream: true, script: send(sse(manyEvents(2000, 100) + finish)),
			cfg: limits(64<<10, 0), class: metrics.ErrOversize, msg: "64KiB limit (--max-response-size"},
		{item: "4 oversize", name: "SSE line over max line size", stream: true, script: send(sse(content(strings.Repeat("z", 100<<10)) + finish)),
			cfg: limits(0, 16<<10), class: metrics.ErrOversize, msg: "16KiB limit (--max-sse-line-size"},
		{item: "4 oversize", name: "endless line, no newline", stream: true, script: send(sse(strings.Repeat("z", 1<<20))),
			cfg: limits(0, 16<<10), class: metrics.ErrOversize, msg: "SSE line"},
		{item: "4 oversize", name: "whole body over max response size", script: send(whole(200, "application/json",
			`{"choices":[{"message":{"content":"`+strings.Repeat("z", 200<<10)+`"}}]}`)), cfg: limits(64<<10, 0), class: metrics.ErrOversize, msg: "response larger"},
		{item: "4 ok", name: "stream under both limits", stream: true, script: send(sse(manyEvents(100, 100) + finish)),
			cfg: limits(64<<10, 16<<10), check: output(strings.Repeat("y", 100*100), 100)},
	}
}

func chunkFaults() []faultCase {
	ev := content("a") + finish + doneEvent
	return []faultCase{
		{item: "5 framing", name: "bare-LF chunk sizes (stream)", stream: true, script: send(chunked("text/event-stream", bareLF(ev))), class: metrics.ErrMalformed},
		{item: "5 framing", name: "bare-LF chunk sizes", script: send(chunked("application/json", bareLF(chatJSON))), class: metrics.ErrMalformed},
		{item: "5 framing", name: "chunk not followed by CRLF (stream)", stream: true,
			script: send(chunked("text/event-stream", fmt.Sprintf("%x\r\n%sXX0\r\n\r\n", len(ev), ev))), class: metrics.ErrMalformed},
		{item: "5 framing", name: "chunk size not hex", script: send(chunked("application/json", "zz\r\n"+chatJSON)), class: metrics.ErrMalformed},
		{item: "5 reset", name: "chunked body cut mid-chunk (stream)", stream: true,
			script: send(chunked("text/event-stream", fmt.Sprintf("%x\r\n%s", 4096, content("a")))), class: metrics.ErrReset},
		{item: "5 reset", name: "RST mid-stream", stream: true, script: then(send(sse(content("a"))), resetConn), class: metrics.ErrReset},
		{item: "5 ok", name: "well-formed chunked stream", stream: true,
			script: send(chunked("text/event-stream", fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(ev), ev))), check: output("a", 1)},
		// Chunk boundaries fall anywhere in an event (here mid-line and
		// between a CR and its LF); extensions, upper-case hex and a
		// trailer are legal framing.
		{item: "5 ok", name: "events split across chunks, extensions, trailer", stream: true,
			script: send(chunked("text/event-stream", splitChunks(strings.ReplaceAll(ev, "\n", "\r\n"), 7)+"0\r\nX-Trailer: 1\r\n\r\n")), check: output("a", 1)},
		{item: "5 framing", name: "chunk size overflows", script: send(chunked("application/json", "10000000000000000\r\n"+chatJSON)), class: metrics.ErrMalformed},
	}
}

// TestFaultTable sends requests to a server misbehaving in each way and
// checks what was recorded for every one of them: the class, that every
// message and output is valid UTF-8, and that a run's completed count is
// its request_count. It logs the fault table (go test -run
// TestFaultTable -v).
func TestFaultTable(t *testing.T) {
	var cases []faultCase
	for _, group := range [][]faultCase{emptyStreamFaults(), emptyWholeFaults(), utf8Faults(), timeoutFaults(), sizeFaults(), chunkFaults()} {
		cases = append(cases, group...)
	}
	var rows []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.n == 0 {
				tc.n = 10
			}
			got := runFault(t, tc)
			want := outcome(tc.class)
			matched := got[want]
			mode := map[bool]string{true: "stream", false: "whole"}[tc.stream]
			if tc.also != "" {
				want += " or " + string(tc.also)
				matched += got[string(tc.also)]
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %d | %s | %s |", tc.item, tc.name, mode, tc.n, classCounts(got), want))
			if matched != tc.n {
				t.Errorf("recorded %s, want %d × %s", classCounts(got), tc.n, want)
			}
		})
	}
	t.Logf("fault table:\n| item | fault | mode | injected | recorded | expected |\n|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// runFault sends tc.n requests to tc's server and returns the recorded
// outcomes by class ("completed" for none), checking each record.
func runFault(t *testing.T, tc faultCase) map[string]int {
	url := ""
	if tc.listen != nil {
		url = tc.listen(t)
	} else {
		url = startRaw(t, tc.script).url
	}
	cfg := Config{URL: url, Stream: tc.stream, API: tc.api, Timeout: time.Minute}
	if tc.cfg != nil {
		tc.cfg(&cfg)
	}
	c, _ := newTestClient(t, cfg)
	acc := metrics.NewAccumulator(metrics.Options{})
	got := map[string]int{}
	for range tc.n {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		checkRecord(t, tc, &rec)
		acc.Add(&rec)
		if rec.Err == nil {
			got[outcome("")]++
		} else {
			got[outcome(rec.Err.Class)]++
		}
	}
	if s := acc.Summary(); s.Completed != s.RequestCount || s.Failed != tc.n-s.Completed {
		t.Errorf("completed %d, request_count %d, failed %d of %d", s.Completed, s.RequestCount, s.Failed, tc.n)
	}
	return got
}

// checkRecord holds what every record must be, failed or not, and tc's own
// expectations.
func checkRecord(t *testing.T, tc faultCase, rec *metrics.Record) {
	t.Helper()
	if !utf8.ValidString(rec.Output) {
		t.Errorf("output is not valid UTF-8: %q", rec.Output)
	}
	if tc.within > 0 && time.Duration(rec.Done-rec.Sent) > tc.within {
		t.Errorf("took %s, want within %s", time.Duration(rec.Done-rec.Sent), tc.within)
	}
	if rec.Err == nil {
		if len(rec.Chunks) == 0 || len(rec.Chunks) != len(rec.ChunkEnds) {
			t.Errorf("completed with %d chunks, %d ends", len(rec.Chunks), len(rec.ChunkEnds))
		}
		if tc.check != nil {
			tc.check(t, rec)
		}
		return
	}
	msg := rec.Err.Message
	if !utf8.ValidString(msg) || len(msg) > maxMessage+len("…") || strings.ContainsFunc(msg, func(r rune) bool { return r < ' ' }) {
		t.Errorf("message not one short valid line: %q", msg)
	}
	if tc.msg != "" && !strings.Contains(msg, tc.msg) {
		t.Errorf("message %q does not contain %q", msg, tc.msg)
	}
}

// outcome names a record's outcome: its class, or "completed".
func outcome(class metrics.ErrorClass) string {
	if class == "" {
		return "completed"
	}
	return string(class)
}

// classCounts renders outcome counts as "9 × empty, 1 × completed".
func classCounts(got map[string]int) string {
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d × %s", got[k], k)
	}
	return strings.Join(parts, ", ")
}

// 400 requests reset mid-stream, each on a connection of its own, carry
// 400 ephemeral ports in their messages; the error list must show one
// error of 400 with one real message.
func TestResetsFromManyPortsAreOneError(t *testing.T) {
	srv := startRaw(t, then(send(sse(content("a"))), resetConn))
	c, _ := newTestClient(t, Config{URL: srv.url, Stream: true})
	acc := metrics.NewAccumulator(metrics.Options{})
	messages := map[string]bool{}
	for range 400 {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err == nil {
			t.Fatal("a reset request completed")
		}
		messages[rec.Err.Message] = true
		acc.Add(&rec)
	}
	errs := acc.Summary().Errors
	if len(errs) != 1 || errs[0].Count != 400 || errs[0].Class != metrics.ErrReset || !messages[errs[0].Message] {
		t.Fatalf("error list %+v, want one reset group of 400 with a real message", errs)
	}
	t.Logf("%d distinct messages, one group: %q", len(messages), errs[0].Message)
}

// splitChunks frames body as chunks of n bytes, their sizes in upper-case
// hex with an extension.
func splitChunks(body string, n int) string {
	var b strings.Builder
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%X;ext=1\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	return b.String()
}

package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http/httputil"
	"strconv"
	"testing"
)

// chunkedOutcome is how a chunked body ends: cleanly, cut short by the
// connection, or with broken framing.
type chunkedOutcome int

const (
	chunkedOK chunkedOutcome = iota
	chunkedTruncated
	chunkedMalformed
)

func (o chunkedOutcome) String() string {
	return [...]string{"complete", "truncated", "malformed"}[o]
}

// decodeChunked is a reference decoder of a chunked body (RFC 9112 §7.1),
// written without the connBody's code: the payload up to where it ends,
// and how it ends. It applies the same bounds as the client: a chunk-size
// or trailer line (with its CRLF) of at most 4 KiB, a CRLF, not a bare LF,
// after every line, at most 100 trailer lines, a size that fits in an
// int64, hex digits with optional trailing whitespace and ";extensions".
func decodeChunked(data []byte) ([]byte, chunkedOutcome) {
	var payload []byte
	line := func() ([]byte, chunkedOutcome) {
		i := bytes.IndexByte(data, '\n')
		switch {
		case i < 0 && len(data) > maxChunkLine, i >= maxChunkLine:
			return nil, chunkedMalformed
		case i < 0:
			return nil, chunkedTruncated
		case i == 0 || data[i-1] != '\r':
			return nil, chunkedMalformed
		}
		l := data[:i-1]
		data = data[i+1:]
		return l, chunkedOK
	}
	for {
		l, o := line()
		if o != chunkedOK {
			return payload, o
		}
		if i := bytes.IndexByte(l, ';'); i >= 0 {
			l = l[:i]
		}
		l = bytes.TrimRight(l, " \t")
		if len(l) == 0 || bytes.ContainsFunc(l, func(r rune) bool { return !strconv.IsPrint(r) || !isHexRune(r) }) {
			return payload, chunkedMalformed
		}
		size, err := strconv.ParseInt(string(l), 16, 64)
		if err != nil {
			return payload, chunkedMalformed
		}
		if size == 0 {
			break
		}
		if int64(len(data)) < size {
			return append(payload, data...), chunkedTruncated
		}
		payload, data = append(payload, data[:size]...), data[size:]
		switch {
		case len(data) < 2:
			return payload, chunkedTruncated
		case data[0] != '\r' || data[1] != '\n':
			return payload, chunkedMalformed
		}
		data = data[2:]
	}
	for range maxTrailerLines {
		l, o := line()
		if o != chunkedOK || len(l) == 0 {
			return payload, o
		}
	}
	return payload, chunkedMalformed
}

func isHexRune(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}

// netReads is the network: it hands out data in reads whose sizes cycle
// through sizes (each 1 to 256 bytes), so a body's framing falls across
// read boundaries anywhere.
type netReads struct {
	data  []byte
	sizes []byte
	n     int
}

func (p *netReads) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	k := len(p.data)
	if len(p.sizes) > 0 {
		k = min(k, int(p.sizes[p.n%len(p.sizes)])+1)
		p.n++
	}
	k = copy(b, p.data[:k])
	p.data = p.data[k:]
	return k, nil
}

// readChunked reads data as a chunked response body the way the client
// does (its read buffer over the connection), arriving in reads
// of the given sizes, with the given MaxResponseSize (0: none): the payload
// handed out and the error that ended it.
func readChunked(t *testing.T, data, sizes []byte, limit int64) ([]byte, error) {
	t.Helper()
	b := &connBody{in: readBuf{src: &netReads{data: data, sizes: sizes}}, clock: NewClock(),
		release: func(bool) {}, framing: byChunks, limit: limit}
	var payload []byte
	for range len(data) + 2 {
		v, _, err := b.next()
		if err != nil {
			if _, _, again := b.next(); again != err {
				t.Fatalf("the body ended with %v, the next read gave %v", err, again)
			}
			if errors.Is(err, io.EOF) != b.eof {
				t.Fatalf("ended with %v, but eof is %v", err, b.eof)
			}
			return payload, err
		}
		if len(v) == 0 {
			t.Fatalf("an empty view without an error after %d bytes", len(payload))
		}
		payload = append(payload, v...)
	}
	t.Fatalf("%d bytes of input gave more than %d views", len(data), len(data)+1)
	return nil, nil
}

// chunkedOutcomeOf classifies the error a connBody ended with.
func chunkedOutcomeOf(t *testing.T, err error) chunkedOutcome {
	t.Helper()
	var fe *framingError
	switch {
	case err == io.EOF:
		return chunkedOK
	case err == io.ErrUnexpectedEOF:
		return chunkedTruncated
	case errors.As(err, &fe):
		return chunkedMalformed
	}
	t.Fatalf("the body ended with %T %v: want io.EOF, io.ErrUnexpectedEOF or a framing error", err, err)
	return 0
}

// FuzzChunkedBody reads arbitrary bytes as a chunked response body, in
// reads of arbitrary sizes, with and without a size limit. It ends exactly
// as the reference decoder says (complete, truncated or malformed, never
// another error, never a panic or an endless loop), with the same payload
// whatever the read boundaries, never more than the limit, and a body it
// reads as complete that net/http's chunked reader reads too gives both the
// same payload.
func FuzzChunkedBody(f *testing.F) {
	for _, s := range []string{"0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", "3;name=v\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
		"A \t;x\r\n0123456789\r\n0\r\n\r\n", "5\r\nhel", "5\r\nhelloXY0\r\n\r\n", "5\nhello\r\n0\r\n\r\n",
		"7fffffffffffffff\r\nab", "8000000000000000\r\n", "-1\r\n", "0x5\r\nhello\r\n0\r\n\r\n", "\r\n",
		"2\r\nab\r\n0\r\n" + string(bytes.Repeat([]byte("a: b\r\n"), 101)) + "\r\n", "1\r\n" + string(bytes.Repeat([]byte("0"), 5000))} {
		f.Add([]byte(s), []byte{0, 3, 255}, uint16(0))
		f.Add([]byte(s), []byte(nil), uint16(4))
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte, limit uint16) {
		want, outcome := decodeChunked(data)
		got, err := readChunked(t, data, sizes, 0)
		if o := chunkedOutcomeOf(t, err); o != outcome || !bytes.Equal(got, want) {
			t.Fatalf("%q: %s with %q (%v), want %s with %q", clipBytes(data), o, clipBytes(got), err, outcome, clipBytes(want))
		}
		if outcome == chunkedOK {
			std, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(data)))
			// net/http is stricter about whitespace before ";" (RFC 9112's
			// BWS): where it reads the body too, it reads the same.
			if err == nil && !bytes.Equal(std, want) {
				t.Fatalf("%q: complete with %q, net/http reads %q, %v", clipBytes(data), clipBytes(want), clipBytes(std), err)
			}
		}
		if limit == 0 {
			return
		}
		got, err = readChunked(t, data, sizes, int64(limit))
		if len(want) > int(limit) {
			if !isOversize(err) || len(got) > int(limit) || !bytes.HasPrefix(want, got) {
				t.Fatalf("%q, limit %d: %q, %v; want at most the limit, then an oversize error", clipBytes(data), limit, clipBytes(got), err)
			}
			return
		}
		if o := chunkedOutcomeOf(t, err); o != outcome || !bytes.Equal(got, want) {
			t.Fatalf("%q, limit %d: %s with %q, want %s with %q", clipBytes(data), limit, o, clipBytes(got), outcome, clipBytes(want))
		}
	})
}

// FuzzChunkedRoundTrip frames any payload as chunks of any sizes, with
// extensions and trailers, and reads it back whole and complete,
// whatever the read boundaries.
func FuzzChunkedRoundTrip(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{3, 0, 200}, []byte{1, 7}, true, "X-Checksum: 1")
	f.Add([]byte(""), []byte(nil), []byte(nil), false, "")
	f.Add(bytes.Repeat([]byte("\r\n0\r\n"), 50), []byte{255, 1}, []byte{0}, true, "")
	f.Fuzz(func(t *testing.T, payload, cuts, sizes []byte, ext bool, trailer string) {
		var body bytes.Buffer
		rest := payload
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])+1)
			}
			body.WriteString(hexSize(n, i))
			if ext {
				body.WriteString(" ;ext=\"v\"")
			}
			body.WriteString("\r\n")
			body.Write(rest[:n])
			body.WriteString("\r\n")
			rest = rest[n:]
		}
		body.WriteString("0\r\n")
		if trailer != "" && !bytes.ContainsAny([]byte(trailer), "\r\n") && len(trailer) < maxChunkLine-2 {
			body.WriteString(trailer + "\r\n")
		}
		body.WriteString("\r\n")
		got, err := readChunked(t, body.Bytes(), sizes, 0)
		if err != io.EOF || !bytes.Equal(got, payload) {
			t.Fatalf("%q read back as %q, %v", clipBytes(body.Bytes()), clipBytes(got), err)
		}
	})
}

// hexSize writes n in hex, upper or lower case and with leading zeros by
// turns, as servers do.
func hexSize(n, i int) string {
	s := strconv.FormatInt(int64(n), 16)
	switch i % 3 {
	case 1:
		return string(bytes.ToUpper([]byte(s)))
	case 2:
		return "00" + s
	}
	return s
}

func clipBytes(b []byte) []byte {
	if len(b) > 120 {
		return append(b[:120:120], "…"...)
	}
	return b
}

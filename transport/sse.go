package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched server-sent event. Its slices are only valid until
// the next call to Next.
type Event struct {
	// Type is the `event:` field; empty for the default "message" type.
	Type []byte
	// Data is every `data:` line of the event joined by "\n".
	Data []byte
	// At is when the network read that completed the event returned, in the
	// Clock's nanoseconds: the arrival time of the event, not the time the
	// parser got round to it.
	At int64
}

// SSEParser reads server-sent events (the WHATWG event-stream format) from a
// response body. It is written for timing: events split across reads and
// several events in one read are both handled, each event is stamped with
// the arrival of its last byte, and nothing is allocated per event once the
// buffers have grown. It accepts LF, CRLF and lone-CR line ends, comments,
// `id:` and `retry:` fields (ignored), multi-line data, and a stream that
// ends without a final blank line.
type SSEParser struct {
	src  *stampedReader
	br   *bufio.Reader
	long []byte // accumulates a line longer than the bufio buffer
	rest []byte // what follows a lone CR within the current physical line
	data []byte
	typ  []byte
	has  bool // a field of the pending event has been seen
	eof  bool

	dataLines int // data lines in the pending event
}

// NewSSEParser parses r, stamping arrivals with clock.
func NewSSEParser(r io.Reader, clock *Clock) *SSEParser {
	src := &stampedReader{r: r, clock: clock}
	return &SSEParser{src: src, br: bufio.NewReaderSize(src, 4<<10)}
}

// Reset reuses the parser (and its buffers) for another stream.
func (p *SSEParser) Reset(r io.Reader) {
	p.src.r, p.src.at = r, 0
	p.br.Reset(p.src)
	p.long, p.rest, p.data, p.typ = p.long[:0], nil, p.data[:0], p.typ[:0]
	p.has, p.eof, p.dataLines = false, false, 0
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// after dispatching any event left without its closing blank line; a
// transport error (a reset, a truncated chunked body) is returned as is.
func (p *SSEParser) Next() (Event, error) {
	for {
		line, err := p.nextLine()
		if err != nil {
			if errors.Is(err, io.EOF) && p.has {
				return p.dispatch(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if p.has {
				return p.dispatch(), nil
			}
			continue
		}
		p.field(line)
	}
}

func (p *SSEParser) dispatch() Event {
	ev := Event{Type: p.typ, Data: p.data, At: p.src.at}
	p.data, p.typ, p.has, p.dataLines = p.data[:0], p.typ[:0], false, 0
	return ev
}

// field applies one non-empty line to the pending event.
func (p *SSEParser) field(line []byte) {
	if line[0] == ':' {
		return // comment, e.g. a keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if p.dataLines > 0 {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.dataLines++
		p.has = true
	case "event":
		p.typ = append(p.typ[:0], value...)
		p.has = true
	}
	// id and retry only matter to reconnecting browsers; unknown fields are
	// ignored as the format requires.
}

// nextLine returns the next logical line without its terminator.
func (p *SSEParser) nextLine() ([]byte, error) {
	if p.rest != nil {
		return p.splitCR(p.rest), nil
	}
	if p.eof {
		return nil, io.EOF
	}
	raw, err := p.physicalLine()
	if err != nil {
		if !errors.Is(err, io.EOF) || len(raw) == 0 {
			return nil, err
		}
		p.eof = true // a last line without a terminator still counts
	}
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	raw = bytes.TrimSuffix(raw, []byte("\r"))
	return p.splitCR(raw), nil
}

// splitCR returns the part of line before a lone CR and keeps the rest for
// the next call.
func (p *SSEParser) splitCR(line []byte) []byte {
	i := bytes.IndexByte(line, '\r')
	if i < 0 {
		p.rest = nil
		return line
	}
	p.rest = line[i+1:]
	return line[:i]
}

// physicalLine reads up to and including the next '\n', however long.
func (p *SSEParser) physicalLine() ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	p.long = append(p.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = p.br.ReadSlice('\n')
		p.long = append(p.long, line...)
	}
	return p.long, err
}

// stampedReader remembers when its last successful Read returned.
type stampedReader struct {
	r     io.Reader
	clock *Clock
	at    int64
}

func (s *stampedReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if n > 0 {
		s.at = s.clock.Now()
	}
	return n, err
}

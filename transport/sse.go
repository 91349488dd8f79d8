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
	// data is the pending event's data: a view of long when the event is
	// one long data line (the bulk of a huge event is then not copied
	// again), else buf.
	data []byte
	buf  []byte
	view bool // data is a view of long
	typ  []byte
	has  bool // a field of the pending event has been seen
	eof  bool
	// inLong is set while the current physical line is in long.
	inLong bool
	// maxLine bounds a physical line in bytes (0: no bound).
	maxLine int64

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
	p.long, p.rest, p.buf, p.typ = p.long[:0], nil, p.buf[:0], p.typ[:0]
	p.data, p.view, p.inLong = p.buf, false, false
	p.has, p.eof, p.dataLines = false, false, 0
}

// SetMaxLineSize bounds one line of the stream: a longer line (an event
// that never ends, or a body that is not SSE and has no newline) fails
// with an oversize error instead of growing without bound. 0 removes the
// bound.
func (p *SSEParser) SetMaxLineSize(n int64) { p.maxLine = n }

// shrink drops line and data buffers grown past bigBuffer by a huge event.
func (p *SSEParser) shrink() {
	if cap(p.long) > bigBuffer {
		p.long = nil
	}
	if cap(p.buf) > bigBuffer {
		p.buf = nil
	}
	p.data, p.view = p.buf[:0], false
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
	p.data, p.view, p.typ, p.has, p.dataLines = p.buf[:0], false, p.typ[:0], false, 0
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
		p.addData(value)
	case "event":
		p.typ = append(p.typ[:0], value...)
		p.has = true
	}
	// id and retry only matter to reconnecting browsers; unknown fields are
	// ignored as the format requires.
}

// addData appends one data line to the pending event. The first line of an
// event, when it is a long line, is kept as a view instead of a copy.
func (p *SSEParser) addData(value []byte) {
	switch {
	case p.dataLines == 0 && p.inLong:
		p.data, p.view = value, true
	case p.dataLines == 0:
		p.buf = append(p.buf[:0], value...)
		p.data = p.buf
	default:
		p.own()
		p.buf = append(append(p.buf, '\n'), value...)
		p.data = p.buf
	}
	p.dataLines++
	p.has = true
}

// own copies a data view into buf, before long is reused or appended to.
func (p *SSEParser) own() {
	if p.view {
		p.buf = append(p.buf[:0], p.data...)
		p.data, p.view = p.buf, false
	}
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

// physicalLine reads up to and including the next '\n', up to maxLine
// bytes.
func (p *SSEParser) physicalLine() ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	p.inLong = false
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	p.own()
	p.long, p.inLong = append(p.long[:0], line...), true
	for errors.Is(err, bufio.ErrBufferFull) {
		if p.maxLine > 0 && int64(len(p.long)) > p.maxLine {
			return nil, errLineSize(p.maxLine)
		}
		line, err = p.br.ReadSlice('\n')
		p.long = append(grow(p.long, len(line)), line...)
	}
	if p.maxLine > 0 && int64(len(bytes.TrimSuffix(p.long, []byte("\n")))) > p.maxLine {
		return nil, errLineSize(p.maxLine)
	}
	return p.long, err
}

// grow makes room for n more bytes by doubling: a huge line arrives a
// buffer at a time, and append's gentler growth for large slices would
// allocate several times the line's size on the way.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	g := make([]byte, len(b), 2*cap(b)+n)
	copy(g, b)
	return g
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

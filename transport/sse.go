package transport

import (
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
//
// It parses views of the body's bytes in place: a client response body
// (connBody) hands out its connection buffer, any other reader is read
// into a buffer of the parser's own. Only a line split across two views is
// copied, and an event's data when its blank line is in a later view.
type SSEParser struct {
	src byteSource
	rd  readerSource // the source of a plain io.Reader

	cur []byte // the unparsed rest of the current view
	at  int64  // when the read that brought the current view returned
	err error  // the source's error, returned once cur is used up

	line   []byte // a line split across views, gathered here
	skipLF bool   // the last view ended in CR: a leading LF ends the same line
	eof    bool   // the source ended and the last line was handed out

	// data is the pending event's data: a view of cur or line when the
	// event has one data line (the common case: not copied at all), else
	// buf.
	data []byte
	buf  []byte
	view bool // data is a view, to be copied before cur or line changes
	typ  []byte
	has  bool // a field of the pending event has been seen
	// maxLine bounds a line in bytes (0: no bound).
	maxLine int64

	dataLines int // data lines in the pending event
}

// byteSource hands out a body's bytes: each call the next view (valid
// until the following call) and the arrival of the read that brought it.
type byteSource interface {
	next() ([]byte, int64, error)
}

// NewSSEParser parses r, stamping arrivals with clock.
func NewSSEParser(r io.Reader, clock *Clock) *SSEParser {
	p := &SSEParser{rd: readerSource{clock: clock}}
	p.Reset(r)
	return p
}

// Reset reuses the parser (and its buffers) for another stream.
func (p *SSEParser) Reset(r io.Reader) {
	if s, ok := r.(byteSource); ok {
		p.src, p.rd.r = s, nil
	} else {
		p.rd.r = r
		p.src = &p.rd
	}
	p.cur, p.at, p.err = nil, 0, nil
	p.line, p.buf, p.typ = p.line[:0], p.buf[:0], p.typ[:0]
	p.data, p.view, p.skipLF, p.eof = p.buf, false, false, false
	p.has, p.dataLines = false, 0
}

// SetMaxLineSize bounds one line of the stream: a longer line (an event
// that never ends, or a body that is not SSE and has no newline) fails
// with an oversize error instead of growing without bound. 0 removes the
// bound.
func (p *SSEParser) SetMaxLineSize(n int64) { p.maxLine = n }

// shrink drops line and data buffers grown past bigBuffer by a huge event.
func (p *SSEParser) shrink() {
	if cap(p.line) > bigBuffer {
		p.line = nil
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
	ev := Event{Type: p.typ, Data: p.data, At: p.at}
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
// event is kept as a view instead of a copy.
func (p *SSEParser) addData(value []byte) {
	if p.dataLines == 0 {
		p.data, p.view = value, true
	} else {
		p.own()
		p.buf = append(append(p.buf, '\n'), value...)
		p.data = p.buf
	}
	p.dataLines++
	p.has = true
}

// own copies a data view into buf, before what it views is reused.
func (p *SSEParser) own() {
	if p.view {
		p.buf = append(p.buf[:0], p.data...)
		p.data, p.view = p.buf, false
	}
}

// nextLine returns the next line without its terminator (LF, CRLF or a
// lone CR): a view of the current view when it lies within one, else
// gathered in p.line.
func (p *SSEParser) nextLine() ([]byte, error) {
	gathered := false
	for {
		if p.skipLF && len(p.cur) > 0 {
			if p.cur[0] == '\n' {
				p.cur = p.cur[1:]
			}
			p.skipLF = false
		}
		if i := lineEnd(p.cur); i >= 0 {
			line := p.cur[:i]
			p.consumeEnd(i)
			if gathered {
				line = append(p.line, line...)
				p.line = line
			}
			return line, p.checkLine(line)
		}
		if len(p.cur) > 0 {
			p.own() // the data may view line, about to be written
			if !gathered {
				p.line, gathered = p.line[:0], true
			}
			p.line = append(grow(p.line, len(p.cur)), p.cur...)
			p.cur = nil
			if err := p.checkLine(p.line); err != nil {
				return nil, err
			}
		}
		if err := p.more(); err != nil {
			if errors.Is(err, io.EOF) && gathered && !p.eof {
				p.eof = true // a last line without a terminator still counts
				return p.line, nil
			}
			return nil, err
		}
	}
}

// lineEnd is the index of the first LF or CR in b, -1 when there is none.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// consumeEnd steps past the line terminator at cur[i]: a CRLF pair is
// one terminator, even when the LF comes in the next view.
func (p *SSEParser) consumeEnd(i int) {
	if p.cur[i] == '\r' {
		if i+1 == len(p.cur) {
			p.skipLF = true
		} else if p.cur[i+1] == '\n' {
			i++
		}
	}
	p.cur = p.cur[i+1:]
}

func (p *SSEParser) checkLine(line []byte) error {
	if p.maxLine > 0 && int64(len(line)) > p.maxLine {
		return errLineSize(p.maxLine)
	}
	return nil
}

// more takes the next view from the source, after copying the pending
// event's data if it viewed the one it replaces.
func (p *SSEParser) more() error {
	if p.err != nil {
		return p.err
	}
	p.own()
	for range maxEmptyReads {
		v, at, err := p.src.next()
		if len(v) > 0 {
			p.cur, p.at, p.err = v, at, err
			return nil
		}
		if err != nil {
			p.err = err
			return err
		}
	}
	p.err = io.ErrNoProgress
	return p.err
}

// maxEmptyReads bounds the reads in a row that return nothing and no
// error, as bufio does.
const maxEmptyReads = 100

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

// readerSource reads a plain io.Reader into a buffer of its own, stamping
// each read's return.
type readerSource struct {
	r     io.Reader
	buf   []byte
	clock *Clock
}

func (s *readerSource) next() ([]byte, int64, error) {
	if s.buf == nil {
		s.buf = make([]byte, 4<<10)
	}
	n, err := s.r.Read(s.buf)
	return s.buf[:n], s.clock.Now(), err
}

package slowdown

// eventFramer cuts an event-stream body into its events as the bytes
// arrive, keeping every byte: an event is everything up to and including
// the blank line that ends it (comments and empty events included), so
// the events joined are the body. Line ends may be LF, CRLF or a lone CR,
// as the WHATWG format allows.
//
// A CRLF split between two reads, after the blank line's CR, ends the
// event at the CR: its LF leads the next event. The bytes are the same;
// only that one byte is released with the next event.
type eventFramer struct {
	// pending is the unfinished event's bytes so far.
	pending []byte
	// lineStart is set when the last byte ended a line, so a line end now
	// is a blank line.
	lineStart bool
	// afterCR is set when the last byte was a CR: an LF now belongs to the
	// same line end.
	afterCR bool
}

// push takes the next bytes of the body and returns the events they
// complete, each a slice of its own (p may be reused by the caller).
func (f *eventFramer) push(p []byte) (events [][]byte) {
	start := 0
	for i := 0; i < len(p); i++ {
		b := p[i]
		if b == '\n' && f.afterCR {
			f.afterCR = false
			continue
		}
		f.afterCR = b == '\r'
		if b != '\n' && b != '\r' {
			f.lineStart = false
			continue
		}
		if !f.lineStart {
			f.lineStart = true
			continue
		}
		end := i + 1
		if b == '\r' && end < len(p) && p[end] == '\n' {
			end, i, f.afterCR = end+1, i+1, false
		}
		events = append(events, append(f.pending, p[start:end]...))
		f.pending, start = nil, end
	}
	f.pending = append(f.pending, p[start:]...)
	return events
}

// rest hands out what follows the last complete event, for a body that
// ends without a final blank line; nil when nothing does.
func (f *eventFramer) rest() []byte {
	r := f.pending
	f.pending = nil
	return r
}

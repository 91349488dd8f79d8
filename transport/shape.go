package transport

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// chunkShape lets a stream's chunks skip the JSON scan. The chunks of one
// answer are one object with one string changing: a chat chunk is
//
//	{"id":"chatcmpl-7","object":"chat.completion.chunk","created":…,"model":…,
//	 "choices":[{"index":0,"delta":{"content":" more"},"finish_reason":null}]}
//
// from the second token to the last but one, with only " more" changing.
// After an object whose only text was one string without escapes (the
// decoder viewed it in place), the shape keeps the bytes before that
// string's body (prefix), the bytes after it (suffix) and the piece the
// object gave. An object that starts with prefix, ends with suffix and has
// between them no quote, backslash or control character scans exactly as
// the remembered one did, token for token, except that string's body: it
// is the same piece with that body as its text. Checking that costs two
// byte comparisons and one look at the body, where the scan is a few
// hundred nanoseconds a token (issue 30: the client at the floor).
//
// Only APIs whose piece comes from the scan alone use it: Responses,
// Messages and TGI judge an event after the scan from its type.
type chunkShape struct {
	api API
	// around is a copy of the bytes before the string's body, then those
	// after it (the object's buffer is reused), in one allocation: every
	// open stream holds one. The prefix is around[:split].
	around []byte
	split  int
	p      piece // its text is nil
	known  bool
}

// judgedAfterScan says the API's events are judged by their type after
// the scan (agentEvent), so a piece is not the scan's alone.
func judgedAfterScan(api API) bool {
	return api == Responses || api == Messages || api == TGI
}

// match is the text of data when data has the remembered shape.
func (c *chunkShape) match(api API, data []byte) (text []byte, ok bool) {
	prefix, suffix := c.around[:c.split], c.around[c.split:]
	if !c.known || c.api != api || len(data) < len(c.around) ||
		!bytes.HasPrefix(data, prefix) || !bytes.HasSuffix(data, suffix) {
		return nil, false
	}
	body := data[len(prefix) : len(data)-len(suffix)]
	if hasStringSpecial(body) {
		return nil, false
	}
	return body, true
}

// learn remembers data's shape, given the piece p its scan gave, whose
// text was view, one string's body in data without escapes, and nothing
// else (see decoder.decode). A piece is the scan's function of the API
// and the object's bytes alone, so a shape stays true until replaced.
func (c *chunkShape) learn(api API, data, view []byte, p *piece) {
	if judgedAfterScan(api) || p.errMsg != "" {
		return
	}
	start := cap(data) - cap(view) // where view starts, if it lies in data
	end := start + len(view)
	if start <= 0 || end >= len(data) || unsafe.SliceData(data[start:]) != unsafe.SliceData(view) {
		return
	}
	c.api, c.known = api, true
	c.around = append(append(c.around[:0], data[:start]...), data[end:]...)
	c.split = start
	c.p = *p
	c.p.text = nil
}

// forget drops buffers grown by a huge object.
func (c *chunkShape) forget() {
	if cap(c.around) > bigBuffer {
		*c = chunkShape{}
	}
}

// hasStringSpecial says b holds a byte that stringSpecial marks: a quote,
// a backslash or a control character, any of which would end or escape a
// string's body, eight bytes at a time as the scanner's str reads.
func hasStringSpecial(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if stringSpecialLanes(binary.LittleEndian.Uint64(b[i:])) != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if stringSpecial[b[i]] {
			return true
		}
	}
	return false
}

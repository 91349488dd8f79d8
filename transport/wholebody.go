package transport

import "io"

// A whole (non-streamed) body is read with an allocation in proportion to
// what arrives: in blocks that grow with it, joined once at the end — or,
// for a Content-Length body, into one buffer of that length as soon as a
// third of it has arrived. A body costs at most 1.7 times itself with a
// Content-Length, twice itself (and at most one 64 KiB block) without; no
// block is larger than what has arrived so far, so a server that announces
// more than it sends costs at most three times what it sent. Growing one buffer by doubling
// as the body arrived, and copying the answer out of it, cost several
// times the body: a 100 MB answer cost 1.42 GB.
const (
	firstBlock = 64 << 10 // a typical answer fits, read into the reused buffer
	maxBlock   = 1 << 20  // the largest block of a body that runs to the close
)

// readBody reads the whole body. The bytes are st.body's (or a buffer
// that replaces it), the state's to decode in place.
func (st *streamState) readBody(body io.Reader) ([]byte, error) {
	cb, _ := body.(*connBody)
	size, err := nextBlock(cb, 0)
	if err == nil && size == 0 {
		err = atEnd(body)
	}
	if err != nil || size == 0 {
		return st.body[:0], err
	}
	if cap(st.body) < size {
		st.body = make([]byte, size)
	}
	block := st.body[:cap(st.body)]
	var full [][]byte
	total := 0
	for {
		n, err := fill(body, block)
		total += n
		if err == io.EOF {
			block = block[:n]
			break
		}
		if err != nil {
			return nil, err
		}
		full = append(full, block)
		if rest, ok := thirdArrived(cb, total); ok {
			return st.readRest(body, full, total, rest)
		}
		if size, err = nextBlock(cb, total); err == nil && size == 0 {
			err = atEnd(body)
		}
		if err != nil {
			return nil, err
		}
		if size == 0 { // the body ended with the block
			block = nil
			break
		}
		block = make([]byte, size)
	}
	if len(full) == 0 {
		return block, nil
	}
	if len(full) == 1 && block == nil {
		st.body = full[0]
		return st.body, nil
	}
	st.body = join(make([]byte, 0, total), full, block)
	return st.body, nil
}

// nextBlock is the size of the block to read after total bytes: what the
// body announces is coming (the rest of its Content-Length or of the
// current chunk), at least firstBlock so tiny chunks share a block, but
// never more than has arrived so far; a body running to the close grows
// the same way up to maxBlock. 0 is the end of the body. A block never
// reaches more than one byte past the response size limit, whose error
// the read gives.
func nextBlock(b *connBody, total int) (int, error) {
	grow := max(firstBlock, total)
	if b == nil || b.framing == byClose {
		return min(grow, maxBlock), nil
	}
	coming, err := b.announced()
	if err != nil || coming == 0 {
		return 0, err
	}
	size := min(max(coming, firstBlock), int64(grow))
	if b.limit > 0 {
		size = min(size, b.limit-int64(total)+1)
	}
	return int(size), nil
}

// thirdArrived is what is left of a Content-Length body once no more than
// twice what has arrived (total) is coming (a third of it is here), and
// within the size limit.
func thirdArrived(b *connBody, total int) (int64, bool) {
	if b == nil || b.framing != bySize {
		return 0, false
	}
	rest := int64(len(b.rest)) + b.left
	if rest == 0 || rest > 2*int64(total) || b.limit > 0 && int64(total)+rest > b.limit {
		return 0, false
	}
	return rest, true
}

// readRest reads the last rest bytes of a Content-Length body into one
// buffer of its whole length, after the blocks read so far, and then its
// end, so the connection can be reused.
func (st *streamState) readRest(body io.Reader, full [][]byte, total int, rest int64) ([]byte, error) {
	buf := join(make([]byte, 0, int64(total)+rest), full, nil)
	buf = buf[:int64(total)+rest]
	if _, err := io.ReadFull(body, buf[total:]); err != nil {
		return nil, err
	}
	if err := atEnd(body); err != nil {
		return nil, err
	}
	st.body = buf
	return buf, nil
}

// atEnd reads the end of a body that has nothing more to give, so it is
// known to have ended cleanly (and its connection can be reused).
func atEnd(body io.Reader) error {
	if _, err := body.Read(nil); err != io.EOF {
		return err
	}
	return nil
}

// join appends the blocks and then last to dst.
func join(dst []byte, blocks [][]byte, last []byte) []byte {
	for _, b := range blocks {
		dst = append(dst, b...)
	}
	return append(dst, last...)
}

// announced is how many bytes of the body are known to be coming: what
// is buffered plus the rest of the Content-Length or of the current chunk,
// whose size line is read first when the last chunk ended. 0 is the end
// of the body, with a nil error.
func (b *connBody) announced() (int64, error) {
	if len(b.rest) > 0 {
		return int64(len(b.rest)) + b.left, nil
	}
	if b.err == nil && b.left == 0 && b.framing == byChunks {
		b.err = b.chunkHeader()
	}
	if b.err != nil && b.err != io.EOF {
		return 0, b.err
	}
	return b.left, nil
}

// fill reads into p until it is full (nil error) or the body ends
// (io.EOF) or fails.
func fill(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := r.Read(p[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

package transport

import "io"

// A whole (non-streamed) body is read with an allocation in proportion to
// it: into one buffer when its length is announced (Content-Length, or a
// body sent as one chunk), else into blocks sized by its chunks and joined
// once at the end. Growing one buffer by doubling as the body arrived
// cost several times the body (each size once, and the last up to twice
// too large): a 100 MB answer cost 1.42 GB.
const (
	firstBlock = 64 << 10 // a typical answer fits, read into the reused buffer
	maxBlock   = 1 << 20  // the largest block of a body whose length is not known
)

// readBody reads the whole body. The bytes are st.body's (or a buffer
// that replaces it), the state's to decode in place.
func (st *streamState) readBody(body io.Reader) ([]byte, error) {
	cb, _ := body.(*connBody)
	size, err := nextBlock(cb, firstBlock, 0)
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
		if size, err = nextBlock(cb, len(block), total); err != nil {
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
	joined := make([]byte, 0, total)
	for _, b := range full {
		joined = append(joined, b...)
	}
	st.body = append(joined, block...)
	return st.body, nil
}

// nextBlock is the size of the block to read next after a block of prev
// bytes, with total read: what the body announces is coming (the rest of
// its Content-Length or of the current chunk), at least firstBlock so tiny
// chunks share a block; a body of unknown length grows by doubling up to
// maxBlock. 0 is the end of the body. A block never reaches more than
// one byte past the response size limit, whose error the read gives.
func nextBlock(b *connBody, prev, total int) (int, error) {
	if b == nil || b.framing == byClose {
		return min(2*prev, maxBlock), nil
	}
	coming, err := b.announced()
	if err != nil || coming == 0 {
		return 0, err
	}
	size := max(coming, firstBlock)
	if b.limit > 0 {
		size = min(size, b.limit-int64(total)+1)
	}
	return int(size), nil
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

package transport

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// maxCachedRequests bounds how many decoded requests a client keeps: a
// dataset's distinct bodies (GenAI-Perf's default is 100) fit many times
// over; bodies past it are decoded on every send.
const maxCachedRequests = 1 << 14

// requestCache keeps the ModelInferRequest of every body sent, so a body
// is decoded once however often the run cycles through it. Bodies are
// pre-rendered and never changed, so one is known by where it lies; the
// entry keeps the body itself, so its memory cannot be reused by another
// body while the entry lives. A cached request is only ever read
// (marshalled), which protobuf messages allow concurrently.
type requestCache struct {
	entries sync.Map // body address → *cachedRequest
	n       atomic.Int64
}

type cachedRequest struct {
	body []byte
	req  *tritonpb.ModelInferRequest
}

// get returns body's request, decoding it on first sight.
func (c *requestCache) get(body []byte, backend string, stream bool) (*tritonpb.ModelInferRequest, error) {
	if len(body) == 0 {
		return tritonRequest(body, backend, stream)
	}
	key := uintptr(unsafe.Pointer(unsafe.SliceData(body)))
	if e, ok := c.entries.Load(key); ok {
		if e := e.(*cachedRequest); len(e.body) == len(body) {
			return e.req, nil
		}
	}
	req, err := tritonRequest(body, backend, stream)
	if err != nil || c.n.Load() >= maxCachedRequests {
		return req, err
	}
	if _, loaded := c.entries.LoadOrStore(key, &cachedRequest{body: body, req: req}); !loaded {
		c.n.Add(1)
	}
	return req, nil
}

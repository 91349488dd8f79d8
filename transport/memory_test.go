package transport

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// TestBigEventMemory measures what one huge SSE event costs the client:
// peak RSS growth (VmHWM), bytes allocated and the heap still held after
// the request. It only runs on request, in a process of its own so the
// peak is this test's:
//
//	LLMBENCH_MEMORY=50 go test -run TestBigEventMemory -v ./transport/
//
// (the value is the event's size in MB).
func TestBigEventMemory(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("LLMBENCH_MEMORY"))
	if mb <= 0 {
		t.Skip("set LLMBENCH_MEMORY=<MB> to measure")
	}
	size := mb << 20
	payload := []byte(`data: {"choices":[{"delta":{"content":"` + strings.Repeat("x", size) + `"}}]}` + "\n\n" + finish + doneEvent)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		bw := bufio.NewWriterSize(w, 64<<10)
		_, _ = bw.Write(payload)
		_ = bw.Flush()
	}))
	defer srv.Close()
	c, _ := newTestClient(t, Config{URL: srv.URL, Stream: true, Timeout: time.Minute,
		MaxResponseSize: 4 << 30, MaxSSELineSize: 4 << 30})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	hwm0 := vmHWM(t)
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	go sampleHeap(&peakHeap, stop)
	var rec metrics.Record
	c.Send(context.Background(), nil, &rec)
	close(stop)
	hwm1 := vmHWM(t)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if rec.Err != nil || len(rec.Output) != size {
		t.Fatalf("err %+v, output %d bytes", rec.Err, len(rec.Output))
	}
	t.Logf("%d MB event: peak RSS +%d MB (VmHWM %d → %d MB), allocated %d MB, heap in use %d MB before, peak %d MB, %d MB after GC (record output %d MB)",
		mb, (hwm1-hwm0)>>20, hwm0>>20, hwm1>>20, (after.TotalAlloc-before.TotalAlloc)>>20,
		before.HeapInuse>>20, peakHeap.Load()>>20, after.HeapInuse>>20, len(rec.Output)>>20)
}

// sampleHeap records the largest HeapInuse seen until stop closes.
func sampleHeap(peak *atomic.Uint64, stop chan struct{}) {
	var m runtime.MemStats
	for {
		select {
		case <-stop:
			return
		case <-time.After(2 * time.Millisecond):
		}
		runtime.ReadMemStats(&m)
		if m.HeapInuse > peak.Load() {
			peak.Store(m.HeapInuse)
		}
	}
}

// vmHWM is the process's peak resident set size in bytes.
func vmHWM(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

package sim

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// batch models the slots of a continuous-batching engine: at most size
// requests run at once and the rest wait in arrival order, as in vLLM's
// scheduler. It also integrates simulated GPU power over time, because
// power is a function of how full the batch is and only changes when the
// batch does.
type batch struct {
	size int
	// decoding counts sequences past their first token; their number sets
	// the inter-token latency of every decode step.
	decoding atomic.Int64

	mu      sync.Mutex
	running int
	queue   list.List // of chan struct{}, closed when a slot is handed over
	joules  float64
	since   time.Time
}

func newBatch(size int) *batch {
	return &batch{size: size, since: time.Now()}
}

// acquire takes a slot, waiting in FIFO order when the batch is full. It
// fails only when ctx ends first, and then holds no slot.
func (b *batch) acquire(ctx context.Context) error {
	b.mu.Lock()
	if b.running < b.size && b.queue.Len() == 0 {
		b.setRunning(b.running + 1)
		b.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	elem := b.queue.PushBack(ready)
	b.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-ready: // granted while giving up: pass the slot on
		b.releaseLocked()
	default:
		b.queue.Remove(elem)
	}
	return ctx.Err()
}

// release frees a slot, handing it straight to the oldest waiter if any.
func (b *batch) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.releaseLocked()
}

func (b *batch) releaseLocked() {
	if front := b.queue.Front(); front != nil {
		close(b.queue.Remove(front).(chan struct{}))
		return
	}
	b.setRunning(b.running - 1)
}

// setRunning books the energy used at the old occupancy before changing it.
func (b *batch) setRunning(n int) {
	b.advanceEnergy(time.Now())
	b.running = n
}

func (b *batch) advanceEnergy(now time.Time) {
	b.joules += gpuPower(b.running, b.size) * now.Sub(b.since).Seconds()
	b.since = now
}

// batchState is one consistent reading of the engine for /metrics.
type batchState struct {
	running, waiting int
	joules           float64
}

func (b *batch) state() batchState {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advanceEnergy(time.Now())
	return batchState{running: b.running, waiting: b.queue.Len(), joules: b.joules}
}

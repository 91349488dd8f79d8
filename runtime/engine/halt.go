package engine

import "sync"

// Halt ends a point's issuing early because the point is complete — an
// auto point's steady-state rule was met — not because it was
// interrupted: requests in flight finish and are measured, the result is
// not marked Interrupted. The nil Halt never fires.
type Halt struct {
	once sync.Once
	ch   chan struct{}
}

// NewHalt is a Halt that has not fired.
func NewHalt() *Halt { return &Halt{ch: make(chan struct{})} }

// Stop fires the halt; later calls do nothing.
func (h *Halt) Stop() { h.once.Do(func() { close(h.ch) }) }

// Done is closed once the halt fired; nil (never ready) for the nil Halt.
func (h *Halt) Done() <-chan struct{} {
	if h == nil {
		return nil
	}
	return h.ch
}

// Stopped reports whether the halt fired.
func (h *Halt) Stopped() bool {
	select {
	case <-h.Done():
		return true
	default:
		return false
	}
}

package engine

import "time"

// Clock is the time a scheduler plans on: stamps in ns since the Unix
// epoch (the records' own, so a record's Sent − Scheduled is its lag), a
// shared start read onto it, and a timer until a planned instant.
// *transport.Clock is the real one; tests run the schedulers on a fake
// one, so planned instants are checked exactly and at once.
type Clock interface {
	Now() int64
	FromTime(t time.Time) int64
	Timer(at int64) (fired <-chan time.Time, stop func() bool)
}

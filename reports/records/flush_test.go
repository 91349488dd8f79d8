package records

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// fakeClock is a Writer's time under a test's control: Now moves only
// when the test advances it, and the flush timer fires only when the test
// says so.
type fakeClock struct {
	now   time.Time
	armed []timerCall
}

type timerCall struct {
	d       time.Duration
	f       func()
	stopped *bool
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	stopped := new(bool)
	c.armed = append(c.armed, timerCall{d, f, stopped})
	return func() bool { was := !*stopped; *stopped = true; return was }
}

// fire runs the timers armed and not stopped, as they would fire.
func (c *fakeClock) fire() {
	armed := c.armed
	c.armed = nil
	for _, t := range armed {
		if !*t.stopped {
			*t.stopped = true
			t.f()
		}
	}
}

// onDisk recovers what a kill at this instant would leave of the file.
func onDisk(t *testing.T, f *os.File) RecoverInfo {
	t.Helper()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := recoverBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func tempRecords(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestFlushTimerWritesAnIdleWritersRecords: records written and then
// followed by no other Write (a slow server, the last requests of a point)
// reach the disk once they are FlushInterval old, by the writer's timer,
// so a kill loses at most that much; records younger than that, or a
// writer with nothing open, write nothing.
func TestFlushTimerWritesAnIdleWritersRecords(t *testing.T) {
	f := tempRecords(t)
	clock := &fakeClock{now: time.Unix(1_790_000_000, 0)}
	w, err := NewWriterOptions(f, testMeta, Options{clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	recs := genRecords(5, 21)
	if err := w.Write(recs[:3]...); err != nil {
		t.Fatal(err)
	}
	if len(clock.armed) != 1 || clock.armed[0].d != DefaultFlushInterval {
		t.Fatalf("after a Write: timers %+v, want one of %v", clock.armed, DefaultFlushInterval)
	}
	clock.now = clock.now.Add(DefaultFlushInterval / 2)
	if err := w.Write(recs[3]); err != nil {
		t.Fatal(err)
	}
	if len(clock.armed) != 1 {
		t.Fatalf("a second Write armed another timer: %d", len(clock.armed))
	}
	if got := onDisk(t, f); got.Rows != 0 {
		t.Fatalf("before the interval: %d rows on disk, want 0", got.Rows)
	}
	clock.now = clock.now.Add(DefaultFlushInterval / 2)
	clock.fire()
	if got := onDisk(t, f); got.Rows != 4 || got.RowGroups != 1 {
		t.Fatalf("after the timer: %+v, want the 4 records in 1 row group", got)
	}
	clock.fire() // nothing armed, nothing open
	if got := onDisk(t, f); got.RowGroups != 1 {
		t.Fatalf("an idle writer wrote a row group: %+v", got)
	}
	// A Write after the interval flushes by itself, without the timer.
	if err := w.Write(recs[4]); err != nil {
		t.Fatal(err)
	}
	clock.now = clock.now.Add(DefaultFlushInterval)
	if err := w.Write(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(t, f); got.Rows != 5 || got.RowGroups != 2 {
		t.Fatalf("a Write past the interval: %+v, want 5 rows in 2 row groups", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	clock.fire() // a timer firing after Close does nothing
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, data, recs)
}

// TestDefaultFlushLosesAtMostSeconds: the default interval keeps what a
// SIGKILL loses to the last few seconds (it was 10 s: a run killed after
// 5 s recovered 0 of its 156 requests).
func TestDefaultFlushLosesAtMostSeconds(t *testing.T) {
	if DefaultFlushInterval > 2*time.Second {
		t.Errorf("DefaultFlushInterval = %v: a kill loses more than the last 2 s", DefaultFlushInterval)
	}
}

// TestFlushBytes: a row group ends once its records hold FlushBytes, so
// records of very long streams neither fill memory nor make one row group
// a crash loses large.
func TestFlushBytes(t *testing.T) {
	f := tempRecords(t)
	clock := &fakeClock{now: time.Unix(1_790_000_000, 0)}
	recs := make([]metrics.Record, 10)
	for i := range recs {
		r := &recs[i]
		r.ID, r.Sent = int64(i), int64(i+1)*1e9
		r.Chunks = make([]int64, 1000) // ~12 KB a record
		for k := range r.Chunks {
			r.Chunks[k] = r.Sent + int64(k+1)*1e6
		}
		r.Done = r.Chunks[len(r.Chunks)-1]
	}
	w, err := NewWriterOptions(f, testMeta, Options{clock: clock, FlushBytes: 30_000})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs...); err != nil {
		t.Fatal(err)
	}
	got := onDisk(t, f)
	if got.RowGroups < 3 || got.Rows < 9 {
		t.Fatalf("10 records of ~12 KB with FlushBytes 30 KB: %+v on disk, want row groups of ~3 records", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, data, recs)
}

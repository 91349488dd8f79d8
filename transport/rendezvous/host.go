package rendezvous

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// host is shard 0's side: the one meeting under way. Shards walk the same
// points in the same order and none passes a point before all arrived, so
// there is never more than one meeting to hold; a finished one is kept
// only until the next point replaces it, whatever a peer sends.
type host struct {
	count int
	opts  Options
	token *[sha256.Size]byte // nil: no token (loopback only)

	mu    sync.Mutex
	cur   *meeting
	first bool // a first meeting was released (StartAt applies to it)
}

// meeting is one point's rendezvous. done closes once it is released (at
// set) or failed (err set); whichever comes first is every shard's answer.
type meeting struct {
	point   string
	arrived map[int]string // shard → where it came from
	done    chan struct{}
	at      time.Time
	err     error
}

func (m *meeting) over() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// ServeHTTP answers one shard's arrival once the meeting is decided. A
// shard whose connection drops while it waits has died (or been cut off):
// the meeting fails for all rather than start a load without its share.
func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !authorized(r.Header.Get("Authorization"), h.token) {
		reply(w, http.StatusUnauthorized, answer{Error: "barrier: missing or wrong token (--barrier-token or LLMBENCH_BARRIER_TOKEN must be the same on every shard)"})
		return
	}
	a, err := parseArrival(r.Method, r.URL.Path, r.URL.RawQuery)
	if err != nil {
		reply(w, http.StatusBadRequest, answer{Error: err.Error()})
		return
	}
	m, err := h.arrive(a, r.RemoteAddr)
	if err != nil {
		reply(w, http.StatusConflict, answer{Error: err.Error()})
		return
	}
	timer := time.NewTimer(h.opts.Timeout)
	defer timer.Stop()
	select {
	case <-m.done:
	case <-r.Context().Done():
		h.fail(m, fmt.Errorf("shard %d (%s) arrived and its connection dropped before the start: it died or was cut off, and the load without its share would be incomplete", a.shard, r.RemoteAddr))
		return // nobody to answer
	case <-timer.C:
		h.fail(m, h.neverArrived(m))
	}
	if m.err != nil {
		reply(w, http.StatusConflict, answer{Error: m.err.Error()})
		return
	}
	reply(w, http.StatusOK, answer{StartNs: m.at.UnixNano()})
}

func reply(w http.ResponseWriter, status int, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}

// meet is shard 0's own arrival, waiting in process. Its giving up (the
// run interrupted) fails the meeting at once for the others too.
func (h *host) meet(ctx context.Context, point string) (time.Time, error) {
	if err := checkPoint(point); err != nil {
		return time.Time{}, err
	}
	m, err := h.arrive(arrival{point: point, shard: 0, count: h.count}, "shard 0 itself")
	if err != nil {
		return time.Time{}, err
	}
	timer := time.NewTimer(h.opts.Timeout)
	defer timer.Stop()
	select {
	case <-m.done:
	case <-ctx.Done():
		h.fail(m, fmt.Errorf("shard 0 stopped waiting: %w", ctx.Err()))
	case <-timer.C:
		h.fail(m, h.neverArrived(m))
	}
	return m.at, m.err
}

// arrive registers a shard at its point. Anything an authenticated peer
// gets wrong — another shard count, a shard claimed twice, a point other
// than the one the others wait at — fails the meeting for every shard at
// once: a run that starts must be exactly the N shards of one plan, and
// the others would otherwise wait out the whole timeout.
func (h *host) arrive(a arrival, from string) (*meeting, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.cur
	pending := m != nil && !m.over()
	var err error
	switch {
	case a.count != h.count:
		err = fmt.Errorf("barrier: shard %d/%d (%s) arrived at a run of %d shards: every shard needs the same --shard I/N", a.shard, a.count, from, h.count)
	case pending && m.point != a.point:
		err = fmt.Errorf("barrier: shard %d (%s) arrived at point %s while shards %s wait at point %s: the shards run different plans (the same scenario, flags and --resume on every shard?)",
			a.shard, from, a.point, list(arrivedShards(m), len(m.arrived)), m.point)
	case pending && m.arrived[a.shard] != "":
		err = fmt.Errorf("barrier: shard %d claimed twice at point %s (by %s and %s): two processes run the same shard", a.shard, a.point, m.arrived[a.shard], from)
	case !pending && m != nil && m.point == a.point && m.err != nil:
		return nil, m.err // came late to a meeting that failed
	case !pending && m != nil && m.point == a.point:
		return nil, fmt.Errorf("barrier: shard %d (%s) arrived again at point %s, which already started", a.shard, from, a.point)
	}
	if err != nil {
		if pending {
			failLocked(m, err)
		}
		return nil, err
	}
	if !pending {
		m = &meeting{point: a.point, arrived: map[int]string{}, done: make(chan struct{})}
		h.cur = m
	}
	m.arrived[a.shard] = from
	if len(m.arrived) == h.count {
		h.release(m)
	}
	return m, nil
}

// release starts the meeting a margin from now, or at StartAt for the
// first one when that is later. Called with mu held.
func (h *host) release(m *meeting) {
	m.at = h.opts.now().Add(h.opts.Margin)
	if !h.first && m.at.Before(h.opts.StartAt) {
		m.at = h.opts.StartAt
	}
	h.first = true
	close(m.done)
}

// fail ends a meeting that has not been decided yet with err.
func (h *host) fail(m *meeting, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	failLocked(m, err)
}

func failLocked(m *meeting, err error) {
	if !m.over() {
		m.err = err
		close(m.done)
	}
}

// neverArrived names the shards a timed-out meeting still misses.
func (h *host) neverArrived(m *meeting) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var missing []int
	for i := 0; i < h.count && len(missing) < listMost; i++ {
		if m.arrived[i] == "" {
			missing = append(missing, i)
		}
	}
	return fmt.Errorf("shards %s never arrived within the barrier timeout %s: %w",
		list(missing, h.count-len(m.arrived)), h.opts.Timeout, context.DeadlineExceeded)
}

func arrivedShards(m *meeting) []int {
	out := make([]int, 0, len(m.arrived))
	for i := range m.arrived {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// listMost is how many shard numbers a message lists: a run of thousands
// of shards must not print (or build) a list of thousands.
const listMost = 10

// list prints the first shard numbers of a set of total, and how many
// more there are.
func list(shards []int, total int) string {
	parts := make([]string, 0, listMost+1)
	for _, s := range shards[:min(len(shards), listMost)] {
		parts = append(parts, strconv.Itoa(s))
	}
	if more := total - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

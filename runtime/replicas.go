package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// replicas spreads requests over several clients, one per replica of the
// endpoint (each with its own connection pool), and notes in every
// record which replica served it. The turns of one conversation stay on
// the replica its first turn went to, as a session-affine router keeps
// them, so the history a turn resends can hit that replica's prefix
// cache.
type replicas struct {
	clients []client
	least   bool // LeastInFlight; round robin otherwise

	mu       sync.Mutex
	next     int   // round robin: the replica of the next request
	inFlight []int // requests sent to each replica and not yet finished
	// sessions holds the replica of each conversation in progress, until
	// its last turn or a failed one.
	sessions map[string]int
}

func newReplicas(clients []client, selection string) *replicas {
	return &replicas{clients: clients, least: selection == plan.LeastInFlight, inFlight: make([]int, len(clients)),
		sessions: map[string]int{}}
}

// Send sends body to the replica the selection picks.
func (b *replicas) Send(ctx context.Context, body []byte, rec *metrics.Record) {
	i := b.pick(rec.Session)
	rec.Replica = i
	b.clients[i].Send(ctx, body, rec)
	b.mu.Lock()
	b.inFlight[i]--
	if rec.Session != "" && (rec.LastTurn || rec.Err != nil) {
		delete(b.sessions, rec.Session) // the conversation ends here
	}
	b.mu.Unlock()
}

// pick chooses a replica and counts the request in flight there: the
// replica of the conversation when session's earlier turn went to one,
// else the next in request order, or the one with the fewest in flight
// right now (ties to the lowest index).
func (b *replicas) pick(session string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.sessions[session]; ok && session != "" {
		b.inFlight[i]++
		return i
	}
	i := b.choose()
	if session != "" {
		b.sessions[session] = i
	}
	b.inFlight[i]++
	return i
}

// choose applies the selection; the caller holds mu.
func (b *replicas) choose() int {
	i := b.next
	if b.least {
		i = 0
		for j, n := range b.inFlight {
			if n < b.inFlight[i] {
				i = j
			}
		}
	} else {
		b.next = (b.next + 1) % len(b.clients)
	}
	return i
}

// Target names every replica's URL, in order.
func (b *replicas) Target() string {
	t := make([]string, len(b.clients))
	for i, c := range b.clients {
		t[i] = c.Target()
	}
	return strings.Join(t, ", ")
}

// Close closes every replica's client.
func (b *replicas) Close() {
	for _, c := range b.clients {
		c.Close()
	}
}

// resolveReplicas resolves every URL of the endpoint (starting a
// simulator for each sim:// one) and checks each answers; stop releases
// them all. An error names the replica when there are several.
func resolveReplicas(e plan.Endpoint) (bases []string, stop func(), err error) {
	urls := e.ReplicaURLs()
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for i, u := range urls {
		one := e
		one.URL = u
		base, s, err := resolve(one)
		if err != nil {
			stop()
			if len(urls) > 1 {
				return nil, nil, fmt.Errorf("replica %d of %d: %w", i, len(urls), err)
			}
			return nil, nil, err
		}
		bases, stops = append(bases, base), append(stops, s)
	}
	return bases, stop, nil
}

// newReplicaSender prepares one client per replica base URL, each with
// its own connection pool, behind the endpoint's selection when there
// are several.
func newReplicaSender(job Job, bases []string, clock *transport.Clock) (client, error) {
	if len(bases) == 1 {
		return newSender(job, bases[0], clock)
	}
	clients := make([]client, 0, len(bases))
	for i, base := range bases {
		c, err := newSender(job, base, clock)
		if err != nil {
			for _, c := range clients {
				c.Close()
			}
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		clients = append(clients, c)
	}
	return newReplicas(clients, job.Endpoint.URLSelection), nil
}

// replicaURLs names the replicas for their summaries: nil for one.
func replicaURLs(urls []string) []string {
	if len(urls) < 2 {
		return nil
	}
	return urls
}

package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// runReplicas measures 40 requests at concurrency 4 against two
// simulators and returns the outcome and how many records each replica
// served.
func runReplicas(t *testing.T, selection string, urls ...string) (*Outcome, []int) {
	t.Helper()
	sink := &recordSink{}
	job := Job{
		Endpoint: plan.Endpoint{URL: urls[0], URLs: urls, URLSelection: selection, API: transport.Chat, Stream: true,
			Model: "m", Timeout: 30 * time.Second},
		Entries: []dataset.Entry{{Text: "hello there", MaxTokens: 4}},
		Point:   engine.Point{Load: plan.Load{Concurrency: 4}, Stop: plan.Stop{Requests: 40}},
		Count:   ByUsage, Records: sink,
	}
	out, err := Execute(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	served := make([]int, len(urls))
	for _, r := range sink.recs {
		if r.Err != nil {
			t.Fatalf("request %d failed: %v", r.ID, r.Err)
		}
		served[r.Replica]++
	}
	return out, served
}

// Round robin splits the requests exactly, whatever each replica's speed;
// each replica's summary counts the records that name it.
func TestReplicasRoundRobinSplitsExactly(t *testing.T) {
	out, served := runReplicas(t, plan.RoundRobin, "sim://?ttft=1ms&itl=1ms", "sim://?ttft=100ms&itl=1ms")
	if served[0] != 20 || served[1] != 20 {
		t.Fatalf("round robin served %v, want [20 20]", served)
	}
	if len(out.Replicas) != 2 {
		t.Fatalf("got %d replica summaries, want 2", len(out.Replicas))
	}
	for i, r := range out.Replicas {
		if r.Index != i || r.Summary.Completed != served[i] || r.URL != out.Replicas[i].URL {
			t.Errorf("replica %d: summary %d completed at index %d, records say %d", i, r.Summary.Completed, r.Index, served[i])
		}
	}
	if out.Summary.Completed != 40 {
		t.Errorf("whole point: %d completed, want 40", out.Summary.Completed)
	}
	// The slow replica's own TTFT shows in its summary, not only in the blend.
	if slow, fast := out.Replicas[1].Summary.TimeToFirstToken.Percentile(50), out.Replicas[0].Summary.TimeToFirstToken.Percentile(50); slow < 100e6 || fast >= 100e6 {
		t.Errorf("TTFT p50: fast replica %.1f ms, slow %.1f ms; want the slow one >= 100 ms and the fast one below", fast/1e6, slow/1e6)
	}
	if !strings.Contains(out.Target, ", ") {
		t.Errorf("target %q should name both replicas", out.Target)
	}
}

// Least in flight sends fewer requests to a slow replica: its requests
// stay in flight while the fast one's finish and take the next.
func TestReplicasLeastInFlightAvoidsSlowReplica(t *testing.T) {
	_, served := runReplicas(t, plan.LeastInFlight, "sim://?ttft=1ms&itl=1ms", "sim://?ttft=300ms&itl=1ms")
	t.Logf("served (fast, slow): %v", served)
	if served[0]+served[1] != 40 || served[1] >= served[0] || served[1] > 10 {
		t.Fatalf("least in flight served %v (fast, slow); want the slow replica to get at most 10 of 40", served)
	}
}

// A replica that cannot be reached fails the point before any request,
// naming which one.
func TestReplicasPreflightEveryReplica(t *testing.T) {
	job := Job{
		Endpoint: plan.Endpoint{URL: "sim://", URLs: []string{"sim://", "http://127.0.0.1:1"}, API: transport.Chat, Model: "m", Timeout: 30 * time.Second},
		Entries:  []dataset.Entry{{Text: "x", MaxTokens: 1}},
		Point:    engine.Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 1}},
	}
	_, err := Execute(context.Background(), job)
	if err == nil || !strings.Contains(err.Error(), "replica 1 of 2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("got %v, want replica 1 of 2 unreachable", err)
	}
}

// pick: round robin goes by request order; least in flight takes the
// replica with the fewest in flight, ties to the lowest index.
func TestReplicaPick(t *testing.T) {
	rr := newReplicas(make([]client, 3), plan.RoundRobin)
	var got []int
	for range 7 {
		got = append(got, rr.pick(""))
	}
	if want := []int{0, 1, 2, 0, 1, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("round robin picked %v, want %v", got, want)
	}
	lif := newReplicas(make([]client, 3), plan.LeastInFlight)
	got = nil
	for range 4 {
		got = append(got, lif.pick(""))
	}
	lif.inFlight[2] = 0 // replica 2's request finished
	got = append(got, lif.pick(""))
	lif.inFlight[0], lif.inFlight[1] = 0, 0
	got = append(got, lif.pick(""), lif.pick(""))
	if want := []int{0, 1, 2, 0, 2, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("least in flight picked %v, want %v", got, want)
	}
}

// The turns of one conversation stay on the replica its first turn went
// to; a new conversation takes the next replica.
func TestReplicaPickKeepsSessions(t *testing.T) {
	rr := newReplicas(make([]client, 2), plan.RoundRobin)
	got := []int{rr.pick("a"), rr.pick("b"), rr.pick("a"), rr.pick("a"), rr.pick("b"), rr.pick(""), rr.pick("c")}
	if want := []int{0, 1, 0, 0, 1, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("picked %v, want %v", got, want)
	}
}

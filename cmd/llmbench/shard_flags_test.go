package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
)

// Shard flags that cannot be meant are bad input (exit 2) naming the
// flag, never turned into something else: a zero timeout is not ten
// minutes, milliseconds are not a date in the year 57900, NaN is not a
// start, and a barrier off loopback is not left open to anyone.
func TestShardFlagsRefuse(t *testing.T) {
	base := func() shardFlags { return shardFlags{Shard: "1/2", BarrierTimeout: 10 * time.Minute} }
	cases := []struct {
		name string
		edit func(*shardFlags)
		want string
	}{
		{"zero timeout", func(f *shardFlags) { f.Barrier, f.BarrierTimeout = "127.0.0.1:7480", 0 }, "--barrier-timeout 0s: want a positive duration"},
		{"negative timeout", func(f *shardFlags) { f.Barrier, f.BarrierTimeout = "127.0.0.1:7480", -time.Second }, "--barrier-timeout -1s"},
		{"milliseconds", func(f *shardFlags) { f.StartAt = "1764931200000" }, "--start-at: got \"1764931200000\", past the year 2262 as Unix seconds (milliseconds?"},
		{"NaN", func(f *shardFlags) { f.StartAt = "NaN" }, "--start-at: got \"NaN\""},
		{"infinity", func(f *shardFlags) { f.StartAt = "+Inf" }, "--start-at: got \"+Inf\""},
		{"past 2262", func(f *shardFlags) { f.StartAt = "2263-01-01T00:00:00Z" }, "--start-at: got \"2263-01-01T00:00:00Z\": want an instant after 1970"},
		{"before 1970", func(f *shardFlags) { f.StartAt = "1969-12-31T00:00:00Z" }, "--start-at"},
		{"negative seconds", func(f *shardFlags) { f.StartAt = "-5" }, "--start-at"},
		{"more shards than a Job holds", func(f *shardFlags) { f.Shard, f.StartAt = "0/1000000", "1" }, "--shard: got \"0/1000000\": 1000000 shards, at most 100000"},
		{"a pod address without a token", func(f *shardFlags) { f.Barrier = "10.1.2.3:7480" }, "--barrier: barrier 10.1.2.3:7480 is not a loopback address"},
		{"every interface without a token", func(f *shardFlags) { f.Shard, f.Barrier, f.BarrierListen = "0/2", "h:7480", ":7480" }, "LLMBENCH_BARRIER_TOKEN"},
		{"a short token", func(f *shardFlags) { f.Barrier, f.BarrierToken = "10.1.2.3:7480", "secret" }, "at least 16"},
		{"a listen address without a barrier", func(f *shardFlags) { f.StartAt, f.BarrierListen = "1", ":7480" }, "--barrier-listen needs --barrier"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := base()
			c.edit(&f)
			_, _, stop, err := f.plan()
			stop()
			if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want bad input (exit 2) containing %q", err, c.want)
			}
			if f.BarrierToken != "" && strings.Contains(err.Error(), f.BarrierToken) {
				t.Errorf("the error quotes the token: %v", err)
			}
		})
	}
}

// What the flags accept: a token from the environment (trimmed, as a file
// mounted from a Secret ends in a newline), a listen address of its own.
func TestShardFlagsAccept(t *testing.T) {
	t.Setenv("LLMBENCH_BARRIER_TOKEN", "")
	f := shardFlags{Shard: "0/2", Barrier: "llmbench-shard-0.llmbench-shard:7480", BarrierListen: "127.0.0.1:0",
		BarrierToken: "0123456789abcdef0123456789abcdef\n", BarrierTimeout: time.Minute, StartAt: "2026-12-02T10:00:00Z"}
	s, meet, stop, err := f.plan()
	defer stop()
	if err != nil || s != (engine.Shard{Index: 0, Count: 2}) || meet == nil {
		t.Fatalf("plan: %v, %v, %v", s, meet, err)
	}
}

// FuzzParseInstant: an accepted --start-at is an instant a start can
// travel as (Unix nanoseconds after 1970, at most 2262-04-11), numbers read
// as seconds are finite, and the instant reads back the same from its
// RFC 3339 form.
func FuzzParseInstant(f *testing.F) {
	for _, s := range []string{"2026-12-02T10:00:00Z", "2026-12-02T10:00:00.123456789+02:00", "1764669600", "1764669600.5",
		"1764669600000", "NaN", "-Inf", "0", "-1", "1e300", "9223372036", "9223372037", "2262-04-11T23:47:16.854775807Z",
		"2262-04-11T23:47:16.854775808Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", " 17 ", "0x1p30", "", "soon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		at, err := parseInstant(text)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(text)) {
				t.Fatalf("%q: error %q does not quote the value", text, err)
			}
			return
		}
		ns := at.UnixNano()
		if ns <= 0 || at.After(latestInstant) || at.Year() > 2262 {
			t.Fatalf("%q accepted as %v (%d ns)", text, at, ns)
		}
		if back, err := parseInstant(at.Format(time.RFC3339Nano)); err != nil || !back.Equal(at) {
			t.Fatalf("%q → %v reads back as %v, %v", text, at, back, err)
		}
		if secs, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil && (math.IsNaN(secs) || math.IsInf(secs, 0)) {
			t.Fatalf("%q accepted", text)
		}
	})
}

// FuzzParseShard: an accepted --shard is 0 <= I < N <= maxShards, its
// I/N form reads back the same, and the shares of every shard split a
// count exactly (what the execution segments rely on).
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "1/2", "3/4", " 2 / 3 ", "4/4", "-1/2", "0/0", "1/-2", "0/100000", "0/100001",
		"99999/100000", "9223372036854775806/9223372036854775807", "1/2/3", "a/b", "", "/", "01/02", "+1/2"} {
		f.Add(s, 1000)
	}
	f.Fuzz(func(t *testing.T, text string, n int) {
		s, err := parseShard(text)
		if err != nil {
			if s != (engine.Shard{}) {
				t.Fatalf("%q refused but gave %v", text, s)
			}
			return
		}
		if s.Index < 0 || s.Index >= s.Count || s.Count > maxShards {
			t.Fatalf("%q accepted as %v", text, s)
		}
		if back, err := parseShard(s.String()); err != nil || back != s {
			t.Fatalf("%q → %v reads back as %v, %v", text, s, back, err)
		}
		n = min(max(n, 0), 1<<40) // any count a run could hold
		share := s.Share(n)
		lo, hi := s.Segment(n)
		if share < 0 || share > n || (s.Sharded() && hi-lo != share) {
			t.Fatalf("%v of %d: share %d, segment [%d, %d)", s, n, share, lo, hi)
		}
	})
}

package metrics

import (
	"reflect"
	"testing"
)

// TestPrefixCacheShare: the share is Σ cached / Σ prompt over the
// completed requests whose usage reported a cached count; failed
// requests and requests without the field are in neither sum, and a run
// where none reported it has no share at all.
func TestPrefixCacheShare(t *testing.T) {
	done := func(u Usage) Record { return Record{Sent: ms(1), Chunks: []int64{ms(2)}, Usage: u} }
	cached := func(prompt, hit int) Usage {
		return Usage{PromptTokens: prompt, CompletionTokens: 1, Reported: true, CachedTokens: hit, CachedReported: true}
	}
	cases := []struct {
		name    string
		records []Record
		want    *PrefixCacheShare
	}{
		{"no usage", []Record{done(Usage{}), done(Usage{})}, nil},
		{"usage without the field", []Record{done(Usage{PromptTokens: 100, CompletionTokens: 1, Reported: true})}, nil},
		{"reported 0", []Record{done(cached(100, 0)), done(cached(300, 0))},
			&PrefixCacheShare{CachedTokens: 0, PromptTokens: 400, Requests: 2, Share: 0}},
		// (64 + 0 + 192) / (128 + 100 + 256) = 256 / 484.
		{"mixed", []Record{
			done(cached(128, 64)), done(cached(100, 0)), done(cached(256, 192)),
			done(Usage{PromptTokens: 1000, CompletionTokens: 1, Reported: true}),   // no field: left out
			{Sent: ms(1), Usage: cached(500, 500), Err: &Failure{Class: ErrReset}}, // failed: left out
			{Sent: ms(1), Done: ms(3), Usage: cached(50, 50)},                      // completed without content: in
		}, &PrefixCacheShare{CachedTokens: 306, PromptTokens: 534, Requests: 4, Share: 306.0 / 534}},
		{"zero prompt", []Record{done(Usage{CompletionTokens: 3, Reported: true, CachedReported: true})},
			&PrefixCacheShare{Requests: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Summarize(c.records, Options{}).PrefixCache
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("PrefixCache = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCacheHitShareGate: the gate metric is the share, a ratio written
// plain or in %, and unmeasured (so failing) without cached counts.
func TestCacheHitShareGate(t *testing.T) {
	s := &Summary{PrefixCache: &PrefixCacheShare{CachedTokens: 1, PromptTokens: 4, Requests: 1, Share: 0.25}}
	for _, c := range []struct {
		gate string
		pass bool
	}{{"cache_hit_share < 30%", true}, {"cache_hit_share < 0.2", false}, {"cache_hit_share >= 25%", true}} {
		g := mustParseGate(t, c.gate)
		v, err := g.Measure(s)
		if err != nil || v != 0.25 || g.Check(v, 0) != c.pass {
			t.Errorf("%q: %v, %v, pass %v; want 0.25, pass %v", c.gate, v, err, g.Check(v, 0), c.pass)
		}
	}
	if _, err := mustParseGate(t, "cache_hit_share < 30%").Measure(&Summary{}); err == nil || err.Error() != "cache_hit_share: not measured in this run" {
		t.Errorf("without cached counts: %v", err)
	}
}

// TestCacheShareShift: the extremes of the reporting points, returned
// only past the threshold (ten percentage points, not inclusive).
func TestCacheShareShift(t *testing.T) {
	sh := func(v float64) *PrefixCacheShare { return &PrefixCacheShare{Requests: 1, PromptTokens: 100, Share: v} }
	cases := []struct {
		name   string
		points []*PrefixCacheShare
		want   *CacheShift
	}{
		{"none report", []*PrefixCacheShare{nil, nil}, nil},
		{"one reports", []*PrefixCacheShare{nil, sh(0.9)}, nil},
		{"within", []*PrefixCacheShare{sh(0.30), sh(0.35), sh(0.40)}, nil},
		{"at the threshold", []*PrefixCacheShare{sh(0), sh(0.10)}, nil},
		{"past it", []*PrefixCacheShare{sh(0.05), nil, sh(0.90), sh(0.01), sh(0.5)},
			&CacheShift{Low: 3, High: 2, LowShare: 0.01, HighShare: 0.90}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CacheShareShift(c.points); !reflect.DeepEqual(got, c.want) {
				t.Errorf("CacheShareShift = %+v, want %+v", got, c.want)
			}
		})
	}
	// Pooled repeats weigh by prompt tokens: (10 + 90) / (100 + 300).
	got := PoolPrefixCache(&PrefixCacheShare{CachedTokens: 10, PromptTokens: 100, Requests: 2}, nil,
		&PrefixCacheShare{CachedTokens: 90, PromptTokens: 300, Requests: 3})
	if want := (&PrefixCacheShare{CachedTokens: 100, PromptTokens: 400, Requests: 5, Share: 0.25}); !reflect.DeepEqual(got, want) {
		t.Errorf("PoolPrefixCache = %+v, want %+v", got, want)
	}
	if PoolPrefixCache(nil, nil) != nil {
		t.Error("PoolPrefixCache of runs without counts is not nil")
	}
}

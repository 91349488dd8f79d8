package sweep

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// withCache gives each point of res the prefix-cache share of its
// repeats: shares[i][k] is repeat k's (cached, prompt) tokens; nil
// reports none.
func withCache(res *runtime.ExperimentResult, shares ...[][2]int64) {
	for i := range res.Points {
		p := &res.Points[i]
		p.Repeats = nil
		for k, s := range shares[i] {
			out := p.Outcome
			if k > 0 {
				copied := *p.Outcome
				out = &copied
			}
			out.Summary.PrefixCache = &metrics.PrefixCacheShare{CachedTokens: s[0], PromptTokens: s[1], Requests: 10,
				Share: float64(s[0]) / float64(s[1])}
			p.Repeats = append(p.Repeats, out)
		}
		if len(shares[i]) == 0 {
			p.Repeats = []*runtime.Outcome{p.Outcome}
		}
	}
}

// The shift is judged on each point's share pooled over its repeats:
// point 4's repeats (0 of 1000, then 900 of 1000) pool to 45%, point 1's
// is 30%, point 16 reports none; 45 − 30 = 15 points > 10: a warning in
// the table's notes and summary.json naming the extremes. Within 10
// points, none.
func TestCacheShiftWarning(t *testing.T) {
	pts := []measured{{1, 50, 10, 100, 1, -1, 0}, {4, 60, 11, 300, 3, -1, 0}, {16, 90, 12, 800, 8, -1, 0}}
	cases := []struct {
		name   string
		shares [][][2]int64
		want   string
	}{
		{"shifted", [][][2]int64{{{300, 1000}}, {{0, 1000}, {900, 1000}}, nil},
			"CACHE: the server's prefix-cache hit share differs between points by 15.0 percentage points " +
				"(concurrency 1 30.0%, concurrency 4 45.0%), more than 10"},
		{"within", [][][2]int64{{{300, 1000}}, {{390, 1000}}, nil}, ""},
		{"not reported", [][][2]int64{nil, nil, nil}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := sweepOf(metrics.ParamConcurrency, nil, pts...)
			withCache(res, c.shares...)
			var lines []string
			for _, n := range TableOf(res).Notes {
				lines = append(lines, n.String())
			}
			notes := strings.Join(lines, "\n")
			if got := strings.Contains(notes, "CACHE:"); got != (c.want != "") || c.want != "" && !strings.Contains(notes, c.want) {
				t.Errorf("table notes:\n%s\nwant %q", notes, c.want)
			}
			var buf bytes.Buffer
			if err := SummaryJSON("s", []runtime.ExperimentResult{*res}, false)(&buf); err != nil {
				t.Fatal(err)
			}
			var f struct {
				Experiments []struct {
					Points []struct {
						PrefixCache *prefixCacheJSON `json:"prefix_cache"`
					} `json:"points"`
					CacheShift *cacheShiftJSON `json:"cache_shift"`
				} `json:"experiments"`
			}
			if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
				t.Fatal(err)
			}
			e := f.Experiments[0]
			if (e.CacheShift != nil) != (c.want != "") {
				t.Fatalf("cache_shift %+v, want present %v", e.CacheShift, c.want != "")
			}
			if s := e.CacheShift; s != nil && (s.Threshold != 10 || s.Spread < 14.999 || s.Spread > 15.001 ||
				s.Low != (cacheExtremeJSON{Point: 0, Label: "concurrency1", HitShare: 30}) || s.High.Point != 1 || s.High.HitShare != 45) {
				t.Errorf("cache_shift %+v", s)
			}
			if c.name == "shifted" {
				if p := e.Points[1].PrefixCache; p == nil || *p != (prefixCacheJSON{HitShare: 45, CachedTokens: 900, PromptTokens: 2000, Requests: 20}) {
					t.Errorf("pooled point 4: %+v", p)
				}
				if e.Points[2].PrefixCache != nil {
					t.Errorf("point 16 reported no cached tokens, got %+v", e.Points[2].PrefixCache)
				}
			}
		})
	}
}

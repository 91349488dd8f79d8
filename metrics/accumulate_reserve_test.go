package metrics

import "testing"

// Reserve sizes the per-request lists and the pooled gaps once (no growth
// while the records of 200 × 4 chunks arrive) and changes no figure of the
// summary; a reservation past GapExactLimit holds the limit, and past it the
// histogram takes over as without one.
func TestAccumulatorReserve(t *testing.T) {
	recs := sampleRecords(200, func(i int) int64 { return int64(i%7+1) * 1e6 })
	reserved, plain := NewAccumulator(Options{}), NewAccumulator(Options{})
	reserved.Reserve(200, 200*4)
	gaps, requests, views := cap(reserved.gaps.exact), cap(reserved.requests), cap(reserved.views.reqs)
	for i := range recs {
		reserved.Add(&recs[i])
		plain.Add(&recs[i])
	}
	if gaps < 800 || cap(reserved.gaps.exact) != gaps {
		t.Errorf("capacity %d reserved, %d after; want ≥ 800 and unchanged", gaps, cap(reserved.gaps.exact))
	}
	if requests < 200 || cap(reserved.requests) != requests || views < 200 || cap(reserved.views.reqs) != views {
		t.Errorf("%d and %d requests reserved, %d and %d after; want ≥ 200 and unchanged",
			requests, views, cap(reserved.requests), cap(reserved.views.reqs))
	}
	if a, b := mustJSON(t, reserved.Summary()), mustJSON(t, plain.Summary()); a != b {
		t.Errorf("summary with a reservation differs:\n%s\n%s", a, b)
	}

	defer func(n int) { GapExactLimit = n }(GapExactLimit)
	GapExactLimit = 100
	capped := NewAccumulator(Options{})
	capped.Reserve(0, 1<<30)
	if c := cap(capped.gaps.exact); c < 100 || c > 200 {
		t.Errorf("a reservation past the limit holds %d gaps; want the limit, 100", c)
	}
	plain = NewAccumulator(Options{})
	for i := range recs {
		capped.Add(&recs[i])
		plain.Add(&recs[i])
	}
	if capped.gaps.hist == nil {
		t.Error("past the limit the gaps did not move to the histogram")
	}
	if a, b := mustJSON(t, capped.Summary()), mustJSON(t, plain.Summary()); a != b {
		t.Errorf("summary past the limit differs with a reservation:\n%s\n%s", a, b)
	}
}
